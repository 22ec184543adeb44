! The checks the Fortran test programs share. A program names itself once
! with start_checks; a failed check prints
!   <what>: returned <got>, expected <want>: <FTI_LastError>   (expect only)
!   <name>: FAILED: <what> on rank <rank>
! and ends every rank with MPI_Abort(MPI_COMM_WORLD, 1).
module test_checks
  use mpi
  use fti
  implicit none
  private
  public :: start_checks, expect, expect_error, fail

  character(len=:), allocatable, save :: program_name

contains

  ! The name the failure lines start with, e.g. 'global file'.
  subroutine start_checks(name)
    character(len=*), intent(in) :: name
    program_name = name
  end subroutine start_checks

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    character(len=1024) :: message
    if (got == want) return
    call FTI_LastError(message)
    print '(a, a, i0, a, i0, a, a)', what, ': returned ', got, ', expected ', want, ': ', trim(message)
    call fail(what)
  end subroutine expect

  ! FTI_NSCS, and FTI_LastError says `why`.
  subroutine expect_error(got, what, why)
    integer, intent(in) :: got
    character(len=*), intent(in) :: what, why
    character(len=1024) :: message
    call expect(got, FTI_NSCS, what)
    call FTI_LastError(message)
    if (index(message, why) == 0) call fail(what // ': FTI_LastError says ' // trim(message))
  end subroutine expect_error

  ! The rank in MPI_COMM_WORLD: the programs' ranks, FTI running no heads.
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: rank, e
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, e)
    print '(a, a, a, a, i0)', program_name, ': FAILED: ', what, ' on rank ', rank
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail

end module test_checks
