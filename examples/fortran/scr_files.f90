! scr_files.f90 - the Fortran twin of examples/c/scr_files.c: a solver that
! writes its own restart file (one per rank, unformatted stream) and has it
! protected through SCR's interface, the module `scr`: every file name goes
! through SCR_Route_file, inside SCR_Start_output / SCR_Complete_output when
! writing and SCR_Start_restart / SCR_Complete_restart when reading. SCR's
! configuration (environment or SCR_CONF_FILE) decides where files go.
!
! Usage: scr_files_f90 [STEPS [CELLS [CRASH_AT]]] (see scr_files.c; at
! CRASH_AT rank 1 exits with ERROR STOP instead of SIGKILL); same
! solver, same files, and the same result line:
!   scr_files: result steps=<N> <16 hex digits per rank>
program scr_files
  use, intrinsic :: iso_fortran_env, only: error_unit, int64, real64
  use mpi
  use scr
  implicit none

  integer :: steps, cells, crash_at, rank, nranks, left, right, step, i, r, ierr, ierror, have, flag, valid
  real(real64), allocatable :: u(:), next(:)
  integer(int64), allocatable :: all(:)
  integer(int64) :: bits
  character(len=SCR_MAX_FILENAME) :: name, routed
  character(len=32) :: text

  steps = argument(1, 200)
  cells = argument(2, 16)
  crash_at = argument(3, -1)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call SCR_Init(ierror)
  call need(ierror, 'SCR_Init')

  ! u(0) and u(cells + 1) are ghosts: the neighbours' edge cells, or the
  ! ends of the rod.
  allocate(u(0:cells + 1), next(0:cells + 1))
  u = 0.0_real64
  next = 0.0_real64
  step = 0

  call SCR_Have_restart(have, name, ierror)
  call need(ierror, 'SCR_Have_restart')
  if (have == 1) then
    call SCR_Start_restart(name, ierror)
    call need(ierror, 'SCR_Start_restart')
    call SCR_Route_file(file_name(name), routed, ierror)
    valid = 0
    if (ierror == SCR_SUCCESS) valid = read_state(routed)
    ! Fails on every rank when any rank's file was not valid.
    call SCR_Complete_restart(valid, ierror)
    call need(ierror, 'SCR_Complete_restart')
    if (rank == 0) write (*, '(a, i0, a, a, a)') 'scr_files: restarted from step ', step, ' (dataset ', trim(name), ')'
  end if

  left = merge(rank - 1, MPI_PROC_NULL, rank > 0)
  right = merge(rank + 1, MPI_PROC_NULL, rank < nranks - 1)
  if (rank == 0) u(0) = 100.0_real64
  do while (step < steps)
    if (have == 0 .and. step == crash_at) then
      call MPI_Barrier(MPI_COMM_WORLD, ierr)  ! the last checkpoint is complete everywhere
      if (rank == merge(1, 0, nranks > 1)) then
        ! Unlike scr_files.c (SIGKILL), the process exits without
        ! MPI_Finalize, and mpiexec ends the job.
        write (error_unit, '(a, i0, a, i0)') 'scr_files: rank ', rank, ' crashes at step ', step
        flush (error_unit)
        error stop 9
      end if
    end if
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 0, u(cells + 1), 1, MPI_DOUBLE_PRECISION, right, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(cells), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    do i = 1, cells
      next(i) = u(i) + 0.25_real64 * (u(i - 1) - 2.0_real64 * u(i) + u(i + 1))
    end do
    u(1:cells) = next(1:cells)
    step = step + 1

    call SCR_Need_checkpoint(flag, ierror)
    call need(ierror, 'SCR_Need_checkpoint')
    if (flag == 1 .and. step < steps) then
      write (text, '(i0)') step
      name = 'step.' // trim(text)
      call SCR_Start_output(name, SCR_FLAG_CHECKPOINT, ierror)
      call need(ierror, 'SCR_Start_output')
      call SCR_Route_file(file_name(name), routed, ierror)
      valid = 0
      if (ierror == SCR_SUCCESS) valid = write_state(routed)
      call SCR_Complete_output(valid, ierror)
      call need(ierror, 'SCR_Complete_output')
    end if
  end do

  ! The same sum as scr_files.c, in the same order: the same bits.
  bits = transfer(weighted_sum(), bits)
  allocate(all(nranks))
  call MPI_Gather(bits, 1, MPI_INTEGER8, all, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, i0)', advance='no') 'scr_files: result steps=', step
    do r = 1, nranks
      write (*, '(a, z16.16)', advance='no') ' ', all(r)
    end do
    write (*, '(a)') ''
    flush (6)
  end if
  deallocate(u, next, all)
  call SCR_Finalize(ierror)
  call need(ierror, 'SCR_Finalize')
  call MPI_Finalize(ierr)

contains

  ! Command-line argument `n` as an integer, `default` when absent.
  integer function argument(n, default) result(value)
    integer, intent(in) :: n, default
    character(len=32) :: arg
    integer :: ios
    value = default
    if (command_argument_count() < n) return
    call get_command_argument(n, arg)
    read (arg, *, iostat=ios) value
    if (ios /= 0) then
      write (error_unit, '(a)') 'usage: scr_files_f90 [STEPS [CELLS [CRASH_AT]]]'
      stop 2
    end if
  end function argument

  ! An SCR call failed: stop the whole job (a local call may fail alone).
  subroutine need(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: ignored
    if (code == SCR_SUCCESS) return
    write (error_unit, '(a, i0, a, a, a, i0, a)') 'scr_files: rank ', rank, ': ', what, ' failed (', code, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1, ignored)
  end subroutine need

  ! This rank's file in `dataset`, as the application names it (relative
  ! to the working directory, which is below SCR_PREFIX).
  function file_name(dataset) result(path)
    character(len=*), intent(in) :: dataset
    character(len=SCR_MAX_FILENAME) :: path
    character(len=16) :: number
    write (number, '(i0)') rank
    path = trim(dataset) // '/rank_' // trim(number) // '.bin'
  end function file_name

  real(real64) function weighted_sum() result(s)
    integer :: k
    s = 0.0_real64
    do k = 1, cells
      s = s + real(k, real64) * u(k)
    end do
  end function weighted_sum

  ! The step and the cells from `path`: 1 when all of it was there.
  integer function read_state(path) result(ok)
    character(len=*), intent(in) :: path
    integer :: unit, ios
    character :: extra
    ok = 0
    open (newunit=unit, file=trim(path), access='stream', form='unformatted', status='old', action='read', &
          iostat=ios)
    if (ios /= 0) return
    read (unit, iostat=ios) step, u(1:cells)
    if (ios == 0) then
      read (unit, iostat=ios) extra
      if (ios /= 0) ok = 1  ! nothing after the cells
    end if
    close (unit)
  end function read_state

  integer function write_state(path) result(ok)
    character(len=*), intent(in) :: path
    integer :: unit, ios
    ok = 0
    open (newunit=unit, file=trim(path), access='stream', form='unformatted', status='replace', action='write', &
          iostat=ios)
    if (ios /= 0) return
    write (unit, iostat=ios) step, u(1:cells)
    if (ios == 0) ok = 1
    close (unit, iostat=ios)
    if (ios /= 0) ok = 0
  end function write_state

end program scr_files
