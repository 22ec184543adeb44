/*
 * fti.h - public C API of mlckpt, source-compatible with FTI 1.6 and with
 * FTI's newest signatures (64-bit lengths and offsets, see FTI_AddVectorField64).
 *
 * Every function returns one of the FTI_* codes below (unless stated
 * otherwise) and never aborts the program: on failure the reason is printed
 * (errors are printed at every verbosity) and is available as text from
 * FTI_LastError().
 *
 * This header compiles on its own as C99 and as C++.
 */
#ifndef MLCKPT_FTI_H
#define MLCKPT_FTI_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* FTI's fti.h brings these standard headers too (programs written for FTI
 * may rely on them, e.g. talloc needs malloc). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

/* Version of mlckpt (not of FTI). MLCKPT_VERSION_NUMBER is MMmmpp. */
#define MLCKPT_VERSION_MAJOR 0
#define MLCKPT_VERSION_MINOR 1
#define MLCKPT_VERSION_PATCH 0
#define MLCKPT_VERSION_NUMBER (MLCKPT_VERSION_MAJOR * 10000 + MLCKPT_VERSION_MINOR * 100 + MLCKPT_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
#define MLCKPT_EXPORT __attribute__((visibility("default")))
#else
#define MLCKPT_EXPORT
#endif

/* Return codes (pinned: never renumbered). */
#define FTI_SCES 0  /* success */
#define FTI_NSCS -1 /* failure; see FTI_LastError() */
#define FTI_NREC -2 /* recovery impossible; see FTI_LastError() */
#define FTI_DONE 1  /* a checkpoint was taken */
#define FTI_HEAD 2  /* returned to head ranks when keep_heads_alive = 1 */

/* Checkpoint levels. */
#define FTI_L1 1           /* node-local storage */
#define FTI_L2 2           /* local + partner copy */
#define FTI_L3 3           /* local + Reed-Solomon parity */
#define FTI_L4 4           /* parallel file system */
#define FTI_L4_DCP 8       /* parallel file system, differential */
#define FTI_L4_H5_SINGLE 9 /* one HDF5 file of the global datasets, beside the levels */

/* FTI's levels beyond FTI_L4 (FTI's FTIT_level), with FTI's values. */
#define FTI_L1_DCP 5
#define FTI_L2_DCP 6
#define FTI_L3_DCP 7
#define FTI_MIN_LEVEL_ID FTI_L1
#define FTI_MAX_LEVEL_ID FTI_L4_H5_SINGLE

/* Head ranks (head = 1): an application rank that ends without FTI_Finalize
 * releases its node's head by sending this int on [advanced] final_tag to
 * the head over the communicator given to FTI_Init, as FTI's programs do
 * (the head then joins an MPI_Barrier on that communicator and exits). */
#define FTI_ENDW 995
/* FTI's other tokens between application ranks and heads (FTI_ENDW is the
 * only one an application sends). */
#define FTI_BASE 990
#define FTI_CKTW 991
#define FTI_XORW 992
#define FTI_RSEW 993
#define FTI_PFSW 994
#define FTI_REJW 996

/* ---- Staging: states of a request (FTI_GetStageStatus) ----------------- */
#define FTI_SI_FAIL 0x4 /* failed: the destination was left as it was */
#define FTI_SI_SCES 0x3 /* succeeded: the file is complete at its destination */
#define FTI_SI_ACTV 0x2 /* being moved */
#define FTI_SI_PEND 0x1 /* waiting for its turn */
#define FTI_SI_NINI 0x0 /* no such request (or its final state was already returned) */
/* ---- end of staging ------------------------------------------------------ */

/* Size of FTI's fixed character buffers. */
#define FTI_BUFS 256

/* ---- The rest of what FTI's fti.h defines for programs (its fti-intern.h),
 * with FTI's values; FTI's internal state structures are not part of it. */

/* Word size of FTI's Reed-Solomon encoding. */
#define FTI_WORD 16
/* talloc(type, num): malloc of num elements of type, as FTI defines it. */
#define talloc(type, num) (type*)malloc(sizeof(type) * ((size_t)num))
/* Levels of FTI's log messages: one is printed when its level is at least
 * [basic] verbosity (1 prints all, 3 warnings and errors). */
#define FTI_EROR 4
#define FTI_WARN 3
#define FTI_IDCP 5
#define FTI_INFO 2
#define FTI_DBUG 1
/* Colours of FTI's log lines. */
#define FTI_COLOR_RED "\x1B[31m"
#define FTI_COLOR_ORG "\x1B[38;5;202m"
#define FTI_COLOR_MAG "\x1B[1;36m"
#define FTI_COLOR_GRN "\x1B[32m"
#define FTI_COLOR_BLU "\x1B[34m"
#define FTI_COLOR_RESET "\x1B[0m"
/* Local or global file system operation. */
#define FTI_FS_LOCAL 0
#define FTI_FS_GLOBAL 1
/* FTI's limits, as FTI states them (not mlckpt's; docs/fti-compatibility.md):
 * the default and the highest [basic] max_var_id, dCP's layer stack, data types. */
#define FTI_DEFAULT_MAX_VAR_ID (100 * 1024)
#define FTI_LIMIT_MAX_VAR_ID INT_MAX
#define MAX_STACK_SIZE 10
#define TYPES_MAX 64
#define TYPES_DIMENSION_MAX 32
#define TYPES_FIELDS_MAX 128
/* MD5 digest lengths (the same as OpenSSL's MD5_DIGEST_LENGTH). */
#ifndef MD5_DIGEST_LENGTH
#define MD5_DIGEST_LENGTH 16
#endif
#ifndef MD5_DIGEST_STRING_LENGTH
#define MD5_DIGEST_STRING_LENGTH 33
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Handle of a data type (primitive, opaque or composite). */
typedef int fti_id_t;
/* A checkpoint level (FTI_L1 ...); an enum of those values in FTI. */
typedef int FTIT_level;
/* FTI 1.4 and earlier spelled type handles FTIT_type. */
#define FTIT_type fti_id_t

/* An HDF5 group (ckpt_io = 5), FTI's layout: filled by FTI_InitGroup; the
 * library keeps its own copy, found by `id`. h5groupID is HDF5's hid_t (a
 * 64-bit integer), -1 outside the library. */
typedef struct FTIT_H5Group {
    int id;
    char name[FTI_BUFS];
    char fullName[FTI_BUFS];
    int childrenNo;
    int childrenID[FTI_BUFS];
    int64_t h5groupID;
} FTIT_H5Group;

/* Communicator of the application ranks (head ranks excluded); valid after
 * FTI_Init, MPI_COMM_NULL before. */
MLCKPT_EXPORT extern MPI_Comm FTI_COMM_WORLD;

/* Primitive type handles; valid at any time. */
MLCKPT_EXPORT extern fti_id_t FTI_CHAR;
MLCKPT_EXPORT extern fti_id_t FTI_SHRT;
MLCKPT_EXPORT extern fti_id_t FTI_INTG;
MLCKPT_EXPORT extern fti_id_t FTI_LONG;
MLCKPT_EXPORT extern fti_id_t FTI_UCHR;
MLCKPT_EXPORT extern fti_id_t FTI_USHT;
MLCKPT_EXPORT extern fti_id_t FTI_UINT;
MLCKPT_EXPORT extern fti_id_t FTI_ULNG;
MLCKPT_EXPORT extern fti_id_t FTI_SFLT;
MLCKPT_EXPORT extern fti_id_t FTI_DBLE;
MLCKPT_EXPORT extern fti_id_t FTI_LDBE;

/* ---- Life cycle -------------------------------------------------------- */

/* Collective over globalComm. Reads the configuration, builds the topology,
 * creates the directories and, on a restart, selects the newest checkpoint
 * that verifies. FTI_SCES; FTI_NREC when a restart was requested but nothing
 * is recoverable (the library is then usable for a fresh run); FTI_NSCS on
 * any other failure (bad configuration, unwritable directory, misuse), and
 * FTI_COMM_WORLD is then globalComm; FTI_HEAD on head ranks with
 * keep_heads_alive = 1 (otherwise head ranks never return). Called again
 * without FTI_Finalize (head = 0), it starts over as a relaunch would: the
 * protected variables are forgotten, the checkpoints taken so far stay and,
 * once the configuration says failure = 1, are restarted from. */
MLCKPT_EXPORT int FTI_Init(const char* configFile, MPI_Comm globalComm);

/* 0 fresh run, 1 restart, 2 restart from a checkpoint kept by
 * keep_last_ckpt; back to 0 after a successful recovery. */
MLCKPT_EXPORT int FTI_Status(void);

/* Collective. Keeps or removes checkpoints as configured (keep_last_ckpt,
 * keep_l4_ckpt), clears or updates [restart] in the configuration file and
 * releases everything. */
MLCKPT_EXPORT int FTI_Finalize(void);

/* ---- Data types --------------------------------------------------------- */

/* Registers an opaque type of `size` bytes and stores its handle in *type. */
MLCKPT_EXPORT int FTI_InitType(fti_id_t* type, int size);

/* Registers a composite type of `size` bytes; returns its handle or
 * FTI_NSCS. `name` and `h5g` may be NULL. */
MLCKPT_EXPORT fti_id_t FTI_InitCompositeType(const char* name, size_t size, FTIT_H5Group* h5g);

/* Adds a field of type `fid` at byte `offset` of composite type `id`. */
MLCKPT_EXPORT int FTI_AddScalarField(fti_id_t id, const char* name, fti_id_t fid, size_t offset);

/* Adds an array field of `ndims` dimensions (`dim_sizes`) of type `tid`. */
MLCKPT_EXPORT int FTI_AddVectorField(fti_id_t id, const char* name, fti_id_t tid, size_t offset, int ndims,
                                     int* dim_sizes);

/* FTI after 1.6 takes 64-bit offsets and lengths in these two calls and in
 * FTI_DefineDataset. The calls above are FTI 1.6's; these are the same
 * with FTI's newest parameter types. Programs call either form by FTI's
 * name: in C the macros at the end of this header choose by the argument's
 * type, in C++ overloads do. A negative offset or length is refused. */
MLCKPT_EXPORT int FTI_AddScalarField64(fti_id_t id, const char* name, fti_id_t fid, int64_t offset);
MLCKPT_EXPORT int FTI_AddVectorField64(fti_id_t id, const char* name, fti_id_t tid, int64_t offset, int ndims,
                                       int64_t* dim_sizes);

/* ---- Protection and checkpoints ------------------------------------------ */

/* Registers (or updates: new pointer, count or type) variable `id`:
 * `count` elements of type `type` at `ptr`. */
MLCKPT_EXPORT int FTI_Protect(int id, void* ptr, int64_t count, fti_id_t type);

/* Collective. Checkpoints every protected variable at `level` (FTI_L1..
 * FTI_L4, FTI_L4_DCP). FTI_DONE on success; on failure the previous
 * checkpoint stays intact. */
MLCKPT_EXPORT int FTI_Checkpoint(int id, int level);

/* Collective. On a restart, recovers; otherwise checkpoints at the highest
 * level whose interval (ckpt_l1..ckpt_l4) has elapsed. FTI_DONE when a
 * checkpoint was taken, FTI_SCES when none was due or after recovery. */
MLCKPT_EXPORT int FTI_Snapshot(void);

/* Collective. Loads every protected variable from the selected checkpoint.
 * FTI_NREC, naming the variable, when a size differs or data is corrupt. */
MLCKPT_EXPORT int FTI_Recover(void);

/* Per-variable recovery, in any order, between Init and Finalize calls. */
MLCKPT_EXPORT int FTI_RecoverVarInit(void);
MLCKPT_EXPORT int FTI_RecoverVar(int id);
MLCKPT_EXPORT int FTI_RecoverVarFinalize(void);

/* Bytes stored for variable `id` in the checkpoint selected for recovery;
 * 0 when there is none. */
MLCKPT_EXPORT int64_t FTI_GetStoredSize(int id);

/* On a restart, resizes the buffer of variable `id` to its stored size
 * (realloc semantics), re-protects it and returns the new pointer; NULL on
 * failure (ptr is then still valid). */
MLCKPT_EXPORT void* FTI_Realloc(int id, void* ptr);

/* Named variables: returns the id bound to `name`, binding a free id first
 * when needed; the binding is stored in checkpoints. */
MLCKPT_EXPORT int FTI_setIDFromString(const char* name);
/* Returns the id bound to `name`, or FTI_NSCS. */
MLCKPT_EXPORT int FTI_getIDFromString(const char* name);

/* Incremental checkpoint: the variables are written one call at a time.
 * With activate == false the three calls do nothing. FTI_FinalizeICP commits
 * (FTI_DONE) only when every protected variable was added. */
MLCKPT_EXPORT int FTI_InitICP(int id, int level, bool activate);
MLCKPT_EXPORT int FTI_AddVarICP(int varID);
MLCKPT_EXPORT int FTI_FinalizeICP(void);

/* ---- Staging ([basic] enable_staging = 1; otherwise each returns FTI_NSCS) */

/* Copies the node-local stage directory's path into stageDir (maxLen bytes,
 * terminating NUL included); FTI_NSCS when it does not fit. */
MLCKPT_EXPORT int FTI_GetStageDir(char* stageDir, int maxLen);

/* The state of request ID (FTI_SI_*). FTI_SI_SCES and FTI_SI_FAIL are
 * returned once: the ID is then free and says FTI_SI_NINI. */
MLCKPT_EXPORT int FTI_GetStageStatus(int ID);

/* Moves lpath to rpath (relative paths are taken from the current
 * directory) in the background: by the node's head with head = 1, else by a
 * thread of the calling rank. rpath's directory must exist. rpath is then
 * complete or as it was, and lpath is removed once rpath is durable. Returns
 * the request ID (>= 0), or FTI_NSCS. FTI_Finalize waits for every request,
 * then removes the stage directory. */
MLCKPT_EXPORT int FTI_SendFile(const char* lpath, const char* rpath);

/* ---- end of staging ------------------------------------------------------ */
/* ---- Configuration and bit-flip injection (FTI_GetConfig, FTI_BitFlip) --- */

/* ckpt_io as FTIT_configuration.ioMode reports it: 1000 + ckpt_io. */
#define FTI_IO_POSIX 1001
#define FTI_IO_MPI 1002
#define FTI_IO_FTIFF 1003
#define FTI_IO_SIONLIB 1004 /* mlckpt: the container in SIONlib's layout */
#define FTI_IO_HDF5 1005
#define FTI_IO_IME 1006

/* The structures FTI_GetConfig returns, member for member as FTI 1.6
 * declares them (FTI built without Lustre), so that programs written for
 * FTI compile and read the same members. mlckpt fills the members that have
 * a meaning in mlckpt and zeroes the others; docs/api.md lists which.
 * Structures that appear only behind pointers are left incomplete. */
struct FTIT_dataset;
struct FTIT_Datatype;
struct FTIT_globalDataset;
struct FTIT_StageInfo;
struct FTIFF_db;
struct ftit_io;
typedef struct FTIT_keymap FTIT_keymap;

typedef struct FTIT_dcpConfigurationPosix {
    unsigned int digestWidth;
    unsigned char* (*hashFunc)(const unsigned char* data, uint64_t nBytes, unsigned char* hash);
    unsigned int StackSize;
    uint32_t BlockSize;
    unsigned int cachedCkpt;
} FTIT_dcpConfigurationPosix;

typedef struct FTIT_datasetInfo {
    int varID;
    uint32_t varSize;
} FTIT_datasetInfo;

typedef struct FTIT_dcpExecutionPosix {
    int nbLayerReco;
    int nbVarReco;
    unsigned int Counter;
    uint32_t FileSize;
    uint32_t dataSize;
    uint32_t dcpSize;
    uint32_t LayerSize[10];                     /* FTI's MAX_STACK_SIZE */
    FTIT_datasetInfo datasetInfo[10][FTI_BUFS]; /* [MAX_STACK_SIZE][FTI_BUFS] */
    char LayerHash[10 * 33];                    /* MAX_STACK_SIZE * MD5_DIGEST_STRING_LENGTH */
} FTIT_dcpExecutionPosix;

typedef struct FTIT_configuration {
    bool stagingEnabled;
    bool dcpFtiff;
    bool dcpPosix;
    bool keepL4Ckpt;
    bool keepHeadsAlive;
    int dcpMode; /* 2000 + dcp_mode */
    int dcpBlockSize;
    char cfgFile[FTI_BUFS];
    int saveLastCkpt;
    int verbosity;
    int blockSize;    /* bytes */
    int transferSize; /* bytes */
    int maxVarId;
    int ckptTag;
    int stageTag;
    int finalTag;
    int generalTag;
    int test; /* local_test */
    int l3WordSize;
    int ioMode; /* FTI_IO_POSIX ... */
    bool h5SingleFileEnable;
    bool h5SingleFileKeep;
    bool h5SingleFileIsInline;
    char h5SingleFileDir[FTI_BUFS];
    char h5SingleFilePrefix[FTI_BUFS];
    char stageDir[FTI_BUFS];
    char localDir[FTI_BUFS];
    char glbalDir[FTI_BUFS];
    char metadDir[FTI_BUFS];
    char lTmpDir[FTI_BUFS];
    char gTmpDir[FTI_BUFS];
    char mTmpDir[FTI_BUFS];
    size_t cHostBufSize;
    char suffix[4];
    FTIT_dcpConfigurationPosix dcpInfoPosix;
} FTIT_configuration;

typedef struct FTIT_topology {
    int nbProc;
    int nbNodes;
    int myRank;
    int splitRank;
    int nodeSize;
    int nbHeads;
    int nbApprocs;
    int groupSize;
    int sectorID;
    int nodeID;
    int groupID;
    int amIaHead;
    int headRank;
    int headRankNode;
    int nodeRank;
    int groupRank;
    int right;
    int left;
    int body[FTI_BUFS];
} FTIT_topology;

typedef struct FTIT_checkpoint {
    char dir[FTI_BUFS];
    char L4Replica[FTI_BUFS];
    char dcpDir[FTI_BUFS];
    char archDir[FTI_BUFS];
    char archMeta[FTI_BUFS];
    char metaDir[FTI_BUFS];
    char dcpName[FTI_BUFS];
    bool isDcp;
    bool recoIsDcp;
    bool hasDcp;
    bool hasCkpt;
    int isInline;
    int ckptIntv;
    int ckptCnt;
    int ckptDcpIntv;
    int ckptDcpCnt;
    bool localReplica;
} FTIT_checkpoint;

/* The [injection] section and FTI_BitFlip's progress. */
typedef struct FTIT_injection {
    int rank;
    int index;
    int position;
    int number;
    int frequency; /* seconds */
    int counter;   /* flips made */
    double timer;  /* MPI_Wtime() of FTI_Init or of the last flip */
} FTIT_injection;

typedef struct FTIT_iCPInfo {
    bool isFirstCp;
    int16_t status;
    int result;
    int lastCkptID;
    int countVar;
    bool* isWritten;
    double t0;
    double t1;
    char fn[FTI_BUFS];
    void* fd;
} FTIT_iCPInfo;

typedef struct FTIFF_metaInfo {
    char checksum[33];        /* MD5_DIGEST_STRING_LENGTH */
    unsigned char myHash[16]; /* MD5_DIGEST_LENGTH */
    int ckptId;
    size_t metaSize;
    size_t ckptSize;
    size_t dataSize;
    size_t pureDataSize;
    size_t fs;
    size_t maxFs;
    size_t ptFs;
    uint64_t timestamp;
    size_t dcpSize;
} FTIFF_metaInfo;

typedef struct FTIT_metadata {
    int level;
    int ckptId;
    int ckptIdL4;
    int32_t maxFs;
    int32_t fs;
    int32_t pfs;
    char ckptFile[FTI_BUFS];
} FTIT_metadata;

typedef struct FTIT_mnode {
    struct FTIT_mnode* _next;
    FTIT_metadata* _data;
} FTIT_mnode;

typedef struct FTIT_mqueue FTIT_mqueue;
struct FTIT_mqueue {
    FTIT_mnode* _front;
    bool _initialized;
    bool (*empty)(FTIT_mqueue*);
    int (*push)(FTIT_mqueue*, FTIT_metadata);
    int (*pop)(FTIT_mqueue*, FTIT_metadata*);
    int (*clear)(FTIT_mqueue*);
};

typedef struct FTIT_DataTypes {
    int32_t ntypes;
    int32_t nprimitives;
    int32_t primitive_offset;
    struct FTIT_Datatype* types;
} FTIT_DataTypes;

typedef struct FTIT_execution FTIT_execution;
struct FTIT_execution {
    char id[FTI_BUFS]; /* execution id */
    int reco;
    int ckptLvel;
    int ckptIntv;
    int lastCkptLvel;
    int wasLastOffline;
    double iterTime;
    double lastIterTime;
    double meanIterTime;
    double globMeanIter;
    double totalIterTime;
    unsigned int syncIter;
    int syncIterMax;
    unsigned int minuteCnt;
    bool hasCkpt;
    bool h5SingleFile;
    unsigned int ckptCnt;
    unsigned int ckptIcnt;
    unsigned int ckptId;
    unsigned int ckptNext;
    unsigned int ckptLast;
    int32_t ckptSize;
    unsigned int nbVar;
    unsigned int nbVarStored;
    int nbGroup;
    int initSCES;
    char h5SingleFileLast[FTI_BUFS];
    char h5SingleFileReco[FTI_BUFS];
    unsigned char integrity[16]; /* MD5_DIGEST_LENGTH */
    FTIT_mqueue mqueue;
    FTIT_metadata ckptMeta;
    struct FTIFF_db* firstdb;
    struct FTIFF_db* lastdb;
    FTIFF_metaInfo FTIFFMeta;
    FTIT_DataTypes datatypes;
    FTIT_H5Group** H5groups;
    struct FTIT_globalDataset* globalDatasets;
    struct FTIT_StageInfo* stageInfo;
    FTIT_iCPInfo iCPInfo;
    MPI_Comm globalComm;
    MPI_Comm groupComm;
    MPI_Comm nodeComm;
    FTIT_dcpExecutionPosix dcpInfoPosix;
    int fastForward;
    int (*ckptFunc[2])(FTIT_configuration*, FTIT_execution*, FTIT_topology*, FTIT_checkpoint*, FTIT_keymap*,
                       struct ftit_io*);
    int (*initICPFunc[2])(FTIT_configuration*, FTIT_execution*, FTIT_topology*, FTIT_checkpoint*, FTIT_keymap*,
                          struct ftit_io*);
    int (*writeVarICPFunc[2])(int, FTIT_configuration*, FTIT_execution*, FTIT_topology*, FTIT_checkpoint*, FTIT_keymap*,
                              struct ftit_io*);
    int (*finalizeICPFunc[2])(FTIT_configuration*, FTIT_execution*, FTIT_topology*, FTIT_checkpoint*, FTIT_keymap*,
                              struct ftit_io*);
    int (*activateHeads)(FTIT_configuration*, FTIT_execution*, FTIT_topology*, FTIT_checkpoint*, int);
};

/* checkpoint[1] ... checkpoint[4] are the levels; checkpoint[0] is unused. */
typedef struct {
    FTIT_configuration configuration;
    FTIT_execution execution;
    FTIT_topology topology;
    FTIT_checkpoint checkpoint[5];
    FTIT_injection injection;
} FTIT_allConfiguration;

/* The session's configuration, topology and state, as FTI reports them
 * (docs/api.md#fti_getconfig). Local. configFile and globalComm are not
 * read, as in FTI: the session's own are reported. Before FTI_Init and
 * after FTI_Finalize, everything is zero and an error is printed. */
MLCKPT_EXPORT FTIT_allConfiguration FTI_GetConfig(const char* configFile, MPI_Comm globalComm);

/* Local. On application rank [injection] rank, flips bit `position` of
 * element `index` of variable `datasetID` (FTI_SFLT or FTI_DBLE), when
 * fewer than `number` flips were made and more than `frequency` seconds
 * passed since FTI_Init or the last flip. FTI_SCES when a bit was flipped;
 * FTI_NSCS otherwise: quietly when no flip is due (FTI_LastError says why),
 * with an error when the variable cannot take the flip. */
MLCKPT_EXPORT int FTI_BitFlip(int datasetID);
/* ---- HDF5 datasets (ckpt_io = 5), one file per rank -------------------------
 * Each protected variable is a dataset of its rank's HDF5 file, by default
 * "Dataset_<id>", one dimension of `count` elements, in the root group "/".
 * These calls name it, shape it and place it in groups; other formats
 * ignore what they set. See docs/hdf5.md. */

/* The extents of FTI_SetAttribute's "dim" attribute. */
typedef struct FTIT_dimension {
    int ndims;
    uint64_t count[32];
} FTIT_dimension;

/* Which fields of an FTIT_attribute FTI_SetAttribute sets (bit flags). */
typedef enum { FTI_ATTRIBUTE_NAME = 1 << 0, FTI_ATTRIBUTE_DIM = 1 << 1 } FTIT_attributeFlag;

typedef struct FTIT_attribute {
    FTIT_dimension dim;
    char name[FTI_BUFS];
} FTIT_attribute;

/* Makes group `name` under `parent` (NULL: the root group "/") and fills
 * *h5group (id, name, fullName). After FTI_Init. FTI_NSCS when `parent`
 * already has a child of that name, or the name has a '/'. */
MLCKPT_EXPORT int FTI_InitGroup(FTIT_H5Group* h5group, const char* name, FTIT_H5Group* parent);

/* Renames the library's group h5group->id (the application's struct is left
 * as it is, as in FTI); its datasets and subgroups move with it. */
MLCKPT_EXPORT int FTI_RenameGroup(FTIT_H5Group* h5group, const char* name);

/* Dataset of protected variable `id`: `rank` dimensions of lengths
 * dimLength[0..rank-1], slowest-varying first, whose product must be the
 * variable's count (rank 0: the shape stays); `name` (NULL: unchanged);
 * group `h5group` (NULL: unchanged). At most 32 dimensions. */
MLCKPT_EXPORT int FTI_DefineDataset(int id, int rank, int* dimLength, const char* name, FTIT_H5Group* h5group);
/* The same with FTI's newest parameter type (64-bit lengths). */
MLCKPT_EXPORT int FTI_DefineDataset64(int id, int rank, int64_t* dimLength, const char* name, FTIT_H5Group* h5group);

/* Attributes of variable `id`'s dataset, as the flags select: "name" (a
 * string) and "dim" (attribute.dim.count[0..ndims-1], 64-bit unsigned). */
MLCKPT_EXPORT int FTI_SetAttribute(int id, FTIT_attribute attribute, FTIT_attributeFlag flag);

/* ---- Global datasets: one HDF5 file shared by all ranks (FTI_L4_H5_SINGLE) ---
 * A global dataset is an array that spans the application ranks; each rank
 * adds its protected variables to it as hyperslabs (subsets). With
 * [basic] h5_single_file_enable = 1, FTI_Checkpoint(id, FTI_L4_H5_SINGLE)
 * writes every global dataset into <h5_single_file_dir>/<prefix>-ID<id>.h5
 * with parallel HDF5, and [restart] failure = 3 restarts from the newest
 * such file on any number of ranks. See docs/hdf5.md. */

/* hsize_t of HDF5 (64-bit unsigned). */
typedef unsigned long long FTIT_hsize_t;

/* Global dataset `id` (its own id space): `rank` dimensions of lengths
 * dimLength[0..rank-1], slowest-varying first, named `name` in group
 * `h5group` (NULL: "/"), of element type `tid`. Local; every rank must
 * define the same global datasets before a checkpoint or recovery. */
MLCKPT_EXPORT int FTI_DefineGlobalDataset(int id, int rank, FTIT_hsize_t* dimLength, const char* name,
                                          FTIT_H5Group* h5group, fti_id_t tid);
/* Protected variable `id` is the hyperslab of global dataset `did` that
 * starts at offset[0..rank-1] and spans count[0..rank-1] elements (as
 * H5Sselect_hyperslab's start and count); `rank` is the dataset's. */
MLCKPT_EXPORT int FTI_AddSubset(int id, int rank, FTIT_hsize_t* offset, FTIT_hsize_t* count, int did);
/* A new shape for global dataset `id`, and a new place for the subset
 * `id` of global dataset `did` (added before with FTI_AddSubset). */
MLCKPT_EXPORT int FTI_UpdateGlobalDataset(int id, int rank, FTIT_hsize_t* dimLength);
MLCKPT_EXPORT int FTI_UpdateSubset(int id, int rank, FTIT_hsize_t* offset, FTIT_hsize_t* count, int did);
/* In a variate restart (FTI_Status() == 3): global dataset `did` takes
 * the shape it has in the file restarted from. */
MLCKPT_EXPORT int FTI_RecoverDatasetDimension(int did);
/* The rank of global dataset `did` (FTI_NSCS when unknown), and its shape:
 * a static array of `rank` lengths, NULL when unknown or `rank` differs. */
MLCKPT_EXPORT int FTI_GetDatasetRank(int did);
MLCKPT_EXPORT FTIT_hsize_t* FTI_GetDatasetSpan(int did, int rank);

/* ---- mlckpt extensions ---------------------------------------------------- */

/* Message of the last failed call on this thread ("" when none). The string
 * stays valid until the next call into the library on this thread. */
MLCKPT_EXPORT const char* FTI_LastError(void);

/* Collective over the application ranks: returns once the work left to the
 * background by the last checkpoint is done and acted upon (the level's
 * work of head = 0 and inline_l<L> = 0, or of the heads; the writing of an
 * in-memory snapshot). FTI_SCES; FTI_NSCS when that work failed, the reason
 * in FTI_LastError (the checkpoint then stays recoverable as committed).
 * Returns at once when nothing is pending. */
MLCKPT_EXPORT int FTI_WaitBackground(void);

/* Lets the checkpoints of levels that compress ([compression] l<L> other
 * than none) store protected variable `id`, of type FTI_SFLT or FTI_DBLE,
 * lossily: each element within `bound` of its value (absolute error, ZFP's
 * fixed-accuracy mode), instead of bit for bit. A restart then restores
 * the variable within the bound. 0 makes it exact again. Applies from the
 * next checkpoint on and stays when the variable is protected again.
 * FTI_SCES; FTI_NSCS for a variable that is not protected, not float or
 * double, or a bound that is negative or not finite. */
MLCKPT_EXPORT int FTI_SetErrorBound(int id, double bound);

/* Version of the library actually loaded: "MAJOR.MINOR.PATCH" and MMmmpp. */
MLCKPT_EXPORT const char* FTI_VersionString(void);
MLCKPT_EXPORT int FTI_VersionNumber(void);

#ifdef __cplusplus
} /* extern "C" */

#include <type_traits>

/* FTI's newest forms of FTI_AddVectorField and FTI_DefineDataset (64-bit
 * lengths) beside FTI 1.6's, as overloads for an int64_t* (templates, so
 * that a null pointer constant still means FTI 1.6's form, unambiguously).
 * FTI_AddScalarField has one form in C++: an integer offset converts to
 * either type, and two overloads would make a literal such as 0 ambiguous. */
template <typename Length, typename = typename std::enable_if<std::is_same<Length, int64_t>::value>::type>
inline int FTI_AddVectorField(fti_id_t id, const char* name, fti_id_t tid, int64_t offset, int ndims,
                              Length* dim_sizes) {
    return FTI_AddVectorField64(id, name, tid, offset, ndims, dim_sizes);
}
template <typename Length, typename = typename std::enable_if<std::is_same<Length, int64_t>::value>::type>
inline int FTI_DefineDataset(int id, int rank, Length* dimLength, const char* name, FTIT_H5Group* h5group) {
    return FTI_DefineDataset64(id, rank, dimLength, name, h5group);
}

#else

/* In C, FTI_AddScalarField, FTI_AddVectorField and FTI_DefineDataset take
 * FTI 1.6's and FTI's newest parameter types: by the type of the offset
 * (int64_t) or of the lengths (int64_t*), these macros call the 64-bit
 * form, otherwise FTI 1.6's. C11's _Generic; GCC and Clang also offer it
 * to C99 programs as an extension. (The functions themselves stay
 * reachable as (FTI_DefineDataset) or through a pointer.) */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define MLCKPT_SELECT_ _Generic
#elif defined(__GNUC__) || defined(__clang__)
#define MLCKPT_SELECT_ __extension__ _Generic
#endif

#ifdef MLCKPT_SELECT_
#define FTI_AddScalarField(id, name, fid, offset) \
    MLCKPT_SELECT_((offset), int64_t : FTI_AddScalarField64, default : FTI_AddScalarField)(id, name, fid, offset)
#define FTI_AddVectorField(id, name, tid, offset, ndims, dim_sizes) \
    MLCKPT_SELECT_((dim_sizes), int64_t*: FTI_AddVectorField64, default: FTI_AddVectorField)(id, name, tid, \
                                                                                            offset, ndims, dim_sizes)
#define FTI_DefineDataset(id, rank, dimLength, name, h5group) \
    MLCKPT_SELECT_((dimLength), int64_t*: FTI_DefineDataset64, default: FTI_DefineDataset)(id, rank, dimLength, \
                                                                                          name, h5group)
#endif

#endif /* __cplusplus */

#endif /* MLCKPT_FTI_H */
