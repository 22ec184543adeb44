/*
 * scr.h - the SCR (Scalable Checkpoint/Restart) application interface of
 * mlckpt, source-compatible with SCR version 3: applications that write
 * their own checkpoint and output files route them through these calls and
 * get mlckpt's levels (node-local cache, partner copies, Reed-Solomon
 * parity, the prefix directory on the parallel file system).
 *
 * All calls but SCR_Route_file, SCR_Get_version and SCR_Config queries are
 * collective over MPI_COMM_WORLD. Calls return SCR_SUCCESS on success, a
 * nonzero value otherwise (the same on every rank for collective calls).
 */
#ifndef MLCKPT_SCR_H
#define MLCKPT_SCR_H

#ifdef __cplusplus
extern "C" {
#endif

#define SCR_MAJOR_VERSION "3"
#define SCR_MINOR_VERSION "1"
#define SCR_PATCH_VERSION "0"
#define SCR_VERSION "v3.1.0"

#if defined(__GNUC__) || defined(__clang__)
#define MLCKPT_SCR_EXPORT __attribute__((visibility("default")))
#else
#define MLCKPT_SCR_EXPORT
#endif

#define SCR_SUCCESS (0)

/* Bytes of the buffers SCR_Route_file, SCR_Have_restart and
 * SCR_Start_restart write into, the terminating zero included. */
#define SCR_MAX_FILENAME 1024

#define SCR_FLAG_NONE (0 << 0)       /* for initializing variables */
#define SCR_FLAG_CHECKPOINT (1 << 0) /* the job can restart from this dataset */
#define SCR_FLAG_OUTPUT (1 << 1)     /* the dataset must reach the prefix directory */

MLCKPT_SCR_EXPORT int SCR_Init(void);
MLCKPT_SCR_EXPORT int SCR_Finalize(void);

/* "KEY=VALUE" sets a parameter (before SCR_Init), "KEY=" unsets it; both
 * return NULL. "KEY" returns the value in effect as a string the caller
 * frees, or NULL when the parameter is not set. */
MLCKPT_SCR_EXPORT const char* SCR_Config(const char* config);
MLCKPT_SCR_EXPORT const char* SCR_Configf(const char* format, ...);

/* Local: writes into `file` (SCR_MAX_FILENAME bytes) the path to write or
 * read the file `name` under the prefix directory. */
MLCKPT_SCR_EXPORT int SCR_Route_file(const char* name, char* file);

MLCKPT_SCR_EXPORT int SCR_Have_restart(int* flag, char* name);
MLCKPT_SCR_EXPORT int SCR_Start_restart(char* name);
MLCKPT_SCR_EXPORT int SCR_Complete_restart(int valid);

MLCKPT_SCR_EXPORT int SCR_Need_checkpoint(int* flag);
MLCKPT_SCR_EXPORT int SCR_Start_checkpoint(void);
MLCKPT_SCR_EXPORT int SCR_Complete_checkpoint(int valid);

MLCKPT_SCR_EXPORT int SCR_Start_output(const char* name, int flags);
MLCKPT_SCR_EXPORT int SCR_Complete_output(int valid);

MLCKPT_SCR_EXPORT int SCR_Current(const char* name);
MLCKPT_SCR_EXPORT int SCR_Drop(const char* name);
MLCKPT_SCR_EXPORT int SCR_Delete(const char* name);

MLCKPT_SCR_EXPORT char* SCR_Get_version(void);
MLCKPT_SCR_EXPORT int SCR_Should_exit(int* flag);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MLCKPT_SCR_H */
