/* What the Fortran module cannot express with C interoperability alone:
 * FTI_Init takes and returns MPI communicators, whose Fortran handles are
 * integers that only MPI can convert; and the C library's type handles are
 * global variables, which Fortran can only define, not refer to; and
 * FTI_GetConfig returns a structure too large and too C-specific (pointers,
 * communicators) to mirror, of which the module copies a subset. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "fti.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "the Fortran module passes communicators as integer(c_int)");

__attribute__((visibility("default"))) int mlckpt_fortran_init(const char* config, MPI_Fint* comm) {
    int rc = FTI_Init(config, MPI_Comm_f2c(*comm));
    if (rc == FTI_SCES || rc == FTI_NREC) *comm = MPI_Comm_c2f(FTI_COMM_WORLD);
    return rc;
}

/* The value of the C type handle called `name`; -1 for an unknown name. */
__attribute__((visibility("default"))) int mlckpt_fortran_type_handle(const char* name) {
    static const struct {
        const char* name;
        const fti_id_t* handle;
    } handles[] = {
        {"FTI_CHAR", &FTI_CHAR}, {"FTI_SHRT", &FTI_SHRT}, {"FTI_INTG", &FTI_INTG}, {"FTI_LONG", &FTI_LONG},
        {"FTI_UCHR", &FTI_UCHR}, {"FTI_USHT", &FTI_USHT}, {"FTI_UINT", &FTI_UINT}, {"FTI_ULNG", &FTI_ULNG},
        {"FTI_SFLT", &FTI_SFLT}, {"FTI_DBLE", &FTI_DBLE}, {"FTI_LDBE", &FTI_LDBE},
    };
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) {
        if (strcmp(handles[i].name, name) == 0) return *handles[i].handle;
    }
    return -1;
}

/* What the module's FTI_GetConfig returns (its bind(C) type shim_config
 * declares the same members in the same order): the integers, then the
 * strings, so that neither side has padding to agree on. */
typedef struct {
    int ioMode, verbosity, saveLastCkpt, keepL4Ckpt, keepHeadsAlive, stagingEnabled, h5SingleFileEnable,
        h5SingleFileKeep, blockSize, transferSize, maxVarId, test, dcpMode;
    int reco, ckptLvel, lastCkptLvel, hasCkpt, ckptId, nbVar, nbVarStored, ckptSize;
    int nbProc, nbNodes, myRank, splitRank, nodeSize, nbHeads, nbApprocs, groupSize, nodeID, nodeRank, amIaHead,
        headRank, groupRank;
    char cfgFile[FTI_BUFS], stageDir[FTI_BUFS], localDir[FTI_BUFS], glbalDir[FTI_BUFS], metadDir[FTI_BUFS],
        h5SingleFileDir[FTI_BUFS], h5SingleFilePrefix[FTI_BUFS], id[FTI_BUFS], h5SingleFileReco[FTI_BUFS];
} mlckpt_fortran_config;

_Static_assert(sizeof(mlckpt_fortran_config) == 34 * sizeof(int) + 9 * FTI_BUFS, "no padding");

__attribute__((visibility("default"))) void mlckpt_fortran_get_config(const char* config, MPI_Fint comm,
                                                                      mlckpt_fortran_config* out) {
    memset(out, 0, sizeof *out);
    /* FTIT_allConfiguration is large: keep it off the stack. */
    FTIT_allConfiguration* all = malloc(sizeof *all);
    if (all == NULL) return;
    *all = FTI_GetConfig(config, MPI_Comm_f2c(comm));
    const FTIT_configuration* c = &all->configuration;
    const FTIT_execution* e = &all->execution;
    const FTIT_topology* t = &all->topology;
    out->ioMode = c->ioMode;
    out->verbosity = c->verbosity;
    out->saveLastCkpt = c->saveLastCkpt;
    out->keepL4Ckpt = c->keepL4Ckpt;
    out->keepHeadsAlive = c->keepHeadsAlive;
    out->stagingEnabled = c->stagingEnabled;
    out->h5SingleFileEnable = c->h5SingleFileEnable;
    out->h5SingleFileKeep = c->h5SingleFileKeep;
    out->blockSize = c->blockSize;
    out->transferSize = c->transferSize;
    out->maxVarId = c->maxVarId;
    out->test = c->test;
    out->dcpMode = c->dcpMode;
    out->reco = e->reco;
    out->ckptLvel = e->ckptLvel;
    out->lastCkptLvel = e->lastCkptLvel;
    out->hasCkpt = e->hasCkpt;
    out->ckptId = (int)e->ckptId;
    out->nbVar = (int)e->nbVar;
    out->nbVarStored = (int)e->nbVarStored;
    out->ckptSize = e->ckptSize;
    out->nbProc = t->nbProc;
    out->nbNodes = t->nbNodes;
    out->myRank = t->myRank;
    out->splitRank = t->splitRank;
    out->nodeSize = t->nodeSize;
    out->nbHeads = t->nbHeads;
    out->nbApprocs = t->nbApprocs;
    out->groupSize = t->groupSize;
    out->nodeID = t->nodeID;
    out->nodeRank = t->nodeRank;
    out->amIaHead = t->amIaHead;
    out->headRank = t->headRank;
    out->groupRank = t->groupRank;
    memcpy(out->cfgFile, c->cfgFile, FTI_BUFS);
    memcpy(out->stageDir, c->stageDir, FTI_BUFS);
    memcpy(out->localDir, c->localDir, FTI_BUFS);
    memcpy(out->glbalDir, c->glbalDir, FTI_BUFS);
    memcpy(out->metadDir, c->metadDir, FTI_BUFS);
    memcpy(out->h5SingleFileDir, c->h5SingleFileDir, FTI_BUFS);
    memcpy(out->h5SingleFilePrefix, c->h5SingleFilePrefix, FTI_BUFS);
    memcpy(out->id, e->id, FTI_BUFS);
    memcpy(out->h5SingleFileReco, e->h5SingleFileReco, FTI_BUFS);
    /* C strings of FTI_BUFS bytes may fill the buffer: always end them. */
    char* strings[] = {out->cfgFile,         out->stageDir,        out->localDir,           out->glbalDir,
                       out->metadDir,        out->h5SingleFileDir, out->h5SingleFilePrefix, out->id,
                       out->h5SingleFileReco};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; ++i) strings[i][FTI_BUFS - 1] = '\0';
    free(all);
}
