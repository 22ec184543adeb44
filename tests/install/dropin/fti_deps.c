/*
 * As FTI's test programs do: reads the configuration with iniparser and
 * hashes with OpenSSL's MD5, linked with FTI's build line only (-lfti),
 * and uses what FTI's fti.h defines beside the API (talloc, FTI_BUFS,
 * FTI_WORD, the message levels).
 */
#include <iniparser.h>
#include <mpi.h>
#include <openssl/md5.h>

#include "fti.h"

int main(int argc, char** argv) {
    static const unsigned char expected[MD5_DIGEST_LENGTH] = {0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0,
                                                              0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1, 0x7f, 0x72};
    unsigned char digest[MD5_DIGEST_LENGTH];
    char* text = talloc(char, FTI_BUFS);
    dictionary* ini;
    int node_size;
    MPI_Init(&argc, &argv);
    ini = iniparser_load(argv[1]);
    if (ini == NULL) return 1;
    node_size = iniparser_getint(ini, "basic:node_size", -1);
    iniparser_freedict(ini);
    MD5((const unsigned char*)"abc", 3, digest);
    if (memcmp(digest, expected, sizeof digest) != 0) return 2;
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) return 3;
    snprintf(text, FTI_BUFS, "node_size %d, word %d, levels %d %d %d %d %d", node_size, FTI_WORD, FTI_EROR, FTI_WARN,
             FTI_INFO, FTI_DBUG, FTI_IDCP);
    if (FTI_Finalize() != FTI_SCES) return 4;
    printf("fti_deps: ok (%s)\n", text);
    free(text);
    MPI_Finalize();
    return 0;
}
