// A C++ program built against the installed mlckpt with find_package or pkg-config.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "mlckpt/mlckpt.hpp"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    {
        mlckpt::Session session{argv[1], MPI_COMM_WORLD};
        std::vector<double> data(64, 1.5);
        session.protect(1, data);
        if (!session.checkpoint(1, mlckpt::Level::L1)) return 1;
        session.finalize();
    }
    std::printf("consumer cxx: ok\n");
    MPI_Finalize();
    return 0;
}
