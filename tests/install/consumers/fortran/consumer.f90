! A Fortran program built against the installed mlckpt with find_package or pkg-config.
program consumer
  use mpi
  use fti
  implicit none
  integer :: ierr, comm
  character(len=512) :: config
  real(8), allocatable, target :: data(:,:)
  call get_command_argument(1, config)
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  if (ierr /= FTI_SCES) error stop 1
  allocate(data(8, 8))
  data = 1.5d0
  call FTI_Protect(1, data, ierr)
  if (ierr /= FTI_SCES) error stop 1
  call FTI_Checkpoint(1, FTI_L1, ierr)
  if (ierr /= FTI_DONE) error stop 1
  call FTI_Finalize(ierr)
  if (ierr /= FTI_SCES) error stop 1
  deallocate(data)
  print '(a)', 'consumer fortran: ok'
  call MPI_Finalize(ierr)
end program consumer
