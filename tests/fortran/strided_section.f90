! FTI_Protect keeps the address it is given, so it must refuse what the
! compiler would pass as a temporary copy: strided sections, through an
! array or a pointer. Contiguous sections are fine.
program strided_section
  use mpi
  use fti
  implicit none
  integer :: ierr, comm
  character(len=512) :: config
  real(8), target :: a(100), b(10, 10)
  real(8), pointer :: p(:)
  call get_command_argument(1, config)
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Init')
  a = 1.0d0
  b = 2.0d0
  call FTI_Protect(1, a(1:100:2), ierr)
  call expect(ierr, FTI_NSCS, 'a strided section')
  p => a(1:100:3)
  call FTI_Protect(2, p, ierr)
  call expect(ierr, FTI_NSCS, 'a pointer to a strided section')
  call FTI_Protect(3, b(1:5, :), ierr)
  call expect(ierr, FTI_NSCS, 'a 2-D section cut across columns')
  call FTI_Protect(4, a(11:20), ierr)
  call expect(ierr, FTI_SCES, 'a contiguous section')
  call FTI_Protect(5, b(:, 2:4), ierr)
  call expect(ierr, FTI_SCES, 'whole columns of a 2-D array')
  call FTI_Checkpoint(1, FTI_L1, ierr)
  call expect(ierr, FTI_DONE, 'FTI_Checkpoint')
  call FTI_Finalize(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Finalize')
  print '(a)', 'strided sections: refused, contiguous ones protected'
  call MPI_Finalize(ierr)

contains

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    integer :: e
    if (got == want) return
    print '(a, a, i0, a, i0)', what, ': FTI returned ', got, ', expected ', want
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine expect

end program strided_section
