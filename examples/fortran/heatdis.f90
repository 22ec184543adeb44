! heatdis.f90 - 2-D heat distribution (Jacobi iteration) protected by mlckpt,
! the Fortran twin of examples/c/heatdis.c: same options, same solver, same
! output, and a bit-identical result.
!
! Every application rank of FTI_COMM_WORLD owns `rows` x `cols` cells plus
! one ghost row above and below (from its neighbours) and one ghost column
! left and right (held at 0.0); the ghost row above rank 0 is the hot
! boundary (100.0). The grid is a pointer array, as in FTI's Fortran
! examples, stored h(column, row) so that its bytes are laid out like the C
! example's rows. The iteration counter and the grid are protected: a run
! killed at any point and relaunched unchanged continues from the newest
! checkpoint and ends exactly like an uninterrupted run.
!
! Usage:
!   heatdis_f90 --config FILE [--iterations N] [--crash-at N] [--level 1-4]
!               [--ckpt-every K] [--rows R] [--cols C]
! (see examples/c/heatdis.c for the meaning of each option)
!
! At the end rank 0 prints one line:
!   heatdis: result iterations=<N> checksum=<16 hex digits> max=<max value>
program heatdis
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: error_unit, int8, int64, real64
  use mpi
  use fti
  implicit none

  real(real64), parameter :: hot_boundary = 100.0_real64
  integer, parameter :: var_iteration = 0, var_grid = 1
  integer, parameter :: wide = selected_int_kind(30)  ! FNV-1a arithmetic modulo 2**64
  integer(wide), parameter :: fnv_offset = int(z'cbf29ce484222325', wide)
  integer(wide), parameter :: fnv_prime = int(z'100000001b3', wide)
  integer(wide), parameter :: two_64 = 2_wide**64

  interface
    function c_raise(signal) bind(C, name="raise") result(rc)
      import :: c_int
      integer(c_int), value :: signal
      integer(c_int) :: rc
    end function c_raise
  end interface

  character(len=1024) :: config
  integer :: iterations, crash_at, level, ckpt_every, rows, cols
  integer :: ierr, comm, rank, nranks, up, down, crash_rank, status, r
  integer, target :: iteration
  real(real64), pointer :: h(:,:) => null(), g(:,:) => null()
  logical :: restarting, use_snapshot, awaiting_snapshot_recovery
  integer(wide) :: local_hash, checksum
  integer(int64) :: hash64
  integer(int64), allocatable :: hashes(:)
  real(real64) :: local_max, global_max

  call parse_options()
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  if (ierr == FTI_HEAD) then  ! head rank with keep_heads_alive = 1: its work is done
    call FTI_Finalize(ierr)
    if (ierr /= FTI_SCES) call fail_collective('FTI_Finalize', ierr)
    call MPI_Finalize(ierr)
    stop
  end if
  if (ierr /= FTI_SCES) call fail_collective('FTI_Init', ierr)

  ! From here on the application talks over the communicator FTI_Init returned.
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  up = merge(rank - 1, MPI_PROC_NULL, rank > 0)
  down = merge(rank + 1, MPI_PROC_NULL, rank < nranks - 1)
  crash_rank = merge(1, 0, nranks > 1)

  allocate(h(0:cols + 1, 0:rows + 1), g(0:cols + 1, 0:rows + 1))
  h = 0.0_real64
  g = 0.0_real64
  if (rank == 0) h(:, 0) = hot_boundary

  iteration = 0
  call FTI_Protect(var_iteration, iteration, ierr)
  if (ierr /= FTI_SCES) call fail_local('FTI_Protect(iteration)', ierr)
  ! The whole array, ghosts included: with the counter, the complete state.
  call FTI_Protect(var_grid, h, ierr)
  if (ierr /= FTI_SCES) call fail_local('FTI_Protect(grid)', ierr)

  call FTI_Status(status)
  restarting = status /= 0
  use_snapshot = ckpt_every == 0
  if (rank == 0) then
    if (use_snapshot) then
      write (*, '(a, i0, a, i0, a, i0, a, i0, a, i0, a, i0, a)') 'heatdis: ', nranks, ' ranks, ', rows, ' x ', cols, &
        ' cells per rank (', int(rows, int64) * nranks, ' x ', cols, ' in all), ', iterations, &
        ' iterations, FTI_Snapshot every iteration'
    else
      write (*, '(a, i0, a, i0, a, i0, a, i0, a, i0, a, i0, a, i0, a, i0, a)') 'heatdis: ', nranks, ' ranks, ', rows, &
        ' x ', cols, ' cells per rank (', int(rows, int64) * nranks, ' x ', cols, ' in all), ', iterations, &
        ' iterations, FTI_Checkpoint at L', level, ' every ', ckpt_every, ' iterations'
    end if
    flush (6)
  end if

  if (restarting .and. .not. use_snapshot) then
    call FTI_Recover(ierr)
    if (ierr /= FTI_SCES) call fail_collective('FTI_Recover', ierr)
    call report_restart()
  end if

  awaiting_snapshot_recovery = restarting .and. use_snapshot
  do while (iteration < iterations)
    if (.not. restarting .and. iteration == crash_at) then
      ! Every rank reaches the crash point, so the previous checkpoint is
      ! complete everywhere; then one process dies for real.
      call MPI_Barrier(comm, ierr)
      if (rank == crash_rank) then
        write (error_unit, '(a, i0, a, i0)') 'heatdis: rank ', rank, ' crashes at iteration ', iteration
        flush (error_unit)
        ierr = c_raise(9_c_int)  ! SIGKILL
      end if
    end if
    if (use_snapshot) then
      ! On a restart the first call recovers; afterwards it checkpoints when
      ! an interval of the configuration has elapsed.
      call FTI_Snapshot(ierr)
      if (ierr /= FTI_SCES .and. ierr /= FTI_DONE) call fail_collective('FTI_Snapshot', ierr)
      if (awaiting_snapshot_recovery) then
        awaiting_snapshot_recovery = .false.
        call report_restart()
        if (iteration >= iterations) exit
      end if
    end if

    call exchange_halos()
    call jacobi_step()
    iteration = iteration + 1

    if (.not. use_snapshot .and. mod(iteration, max(ckpt_every, 1)) == 0 .and. iteration < iterations) then
      ! Checkpoint ids grow with the iteration, across restarts too.
      call FTI_Checkpoint(iteration / ckpt_every, level, ierr)
      if (ierr /= FTI_DONE) call fail_collective('FTI_Checkpoint', ierr)
    end if
  end do

  ! Result: hash of every rank's owned cells, combined in rank order, and
  ! the hottest cell of the whole grid.
  local_hash = fnv_offset
  do r = 1, rows
    local_hash = fnv1a_bytes(local_hash, transfer(h(1:cols, r), [0_int8]))
  end do
  local_max = max(0.0_real64, maxval(h(1:cols, 1:rows)))
  hash64 = to_int64(local_hash)
  allocate(hashes(nranks))
  call MPI_Gather(hash64, 1, MPI_INTEGER8, hashes, 1, MPI_INTEGER8, 0, comm, ierr)
  call MPI_Reduce(local_max, global_max, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, comm, ierr)
  if (rank == 0) then
    checksum = fnv_offset
    do r = 1, nranks
      checksum = fnv1a_bytes(checksum, le_bytes(hashes(r)))
    end do
    write (*, '(a, i0, a, a, a, a)') 'heatdis: result iterations=', iteration, ' checksum=', hex16(checksum), &
      ' max=', trim(fixed10(global_max))
    flush (6)
  end if

  deallocate(h, g, hashes)
  call FTI_Finalize(ierr)
  if (ierr /= FTI_SCES) call fail_collective('FTI_Finalize', ierr)
  call MPI_Finalize(ierr)

contains

  subroutine parse_options()
    integer :: i, n
    character(len=1024) :: option, value
    config = ''
    iterations = 600
    crash_at = -1
    level = 1
    ckpt_every = 0
    rows = 256
    cols = 256
    n = command_argument_count()
    i = 1
    do while (i <= n)
      call get_command_argument(i, option)
      if (option == '--help' .or. option == '-h') then
        call usage()
        stop
      end if
      if (i + 1 > n) call usage_error(trim(option) // ': unknown option or missing value')
      call get_command_argument(i + 1, value)
      select case (option)
      case ('--config')
        config = value
      case ('--iterations')
        iterations = parse_int(option, value, 0, huge(0) - 1)
      case ('--crash-at')
        crash_at = parse_int(option, value, 0, huge(0) - 1)
      case ('--level')
        level = parse_int(option, value, 1, 4)
      case ('--ckpt-every')
        ckpt_every = parse_int(option, value, 0, huge(0) - 1)
      case ('--rows')
        rows = parse_int(option, value, 1, 2**20)
      case ('--cols')
        cols = parse_int(option, value, 1, 2**20)
      case default
        call usage_error(trim(option) // ': unknown option')
      end select
      i = i + 2
    end do
    if (config == '') call usage_error('--config FILE is required')
  end subroutine parse_options

  integer function parse_int(option, text, lo, hi) result(v)
    character(len=*), intent(in) :: option, text
    integer, intent(in) :: lo, hi
    integer :: stat
    integer(int64) :: wide_value
    read (text, *, iostat=stat) wide_value
    if (stat /= 0 .or. verify(trim(text), '0123456789-') /= 0 .or. wide_value < lo .or. wide_value > hi) then
      write (error_unit, '(a, a, a, a, a, i0, a, i0)') 'heatdis: ', trim(option), " '", trim(text), &
        "': expected an integer from ", lo, ' to ', hi
      call usage()
      error stop 2
    end if
    v = int(wide_value)
  end function parse_int

  subroutine usage()
    write (error_unit, '(a)') 'usage: heatdis_f90 --config FILE [--iterations N] [--crash-at N] [--level 1-4]', &
      '                   [--ckpt-every K] [--rows R] [--cols C]', &
      '  (the options of examples/c/heatdis.c)'
  end subroutine usage

  subroutine usage_error(message)
    character(len=*), intent(in) :: message
    write (error_unit, '(a, a)') 'heatdis: ', message
    call usage()
    error stop 2
  end subroutine usage_error

  subroutine report_restart()
    if (rank == 0) then
      write (*, '(a, i0)') 'heatdis: restarted from iteration ', iteration
      flush (6)
    end if
  end subroutine report_restart

  ! A collective call failed on every rank alike: report and leave MPI
  ! cleanly, without FTI_Finalize (it would remove the checkpoints).
  subroutine fail_collective(call_name, rc)
    character(len=*), intent(in) :: call_name
    integer, intent(in) :: rc
    character(len=1024) :: message
    integer :: e, me
    call MPI_Comm_rank(MPI_COMM_WORLD, me, e)
    call FTI_LastError(message)
    if (me == 0) write (error_unit, '(a, a, a, i0, a, a)') 'heatdis: ', call_name, ' failed (', rc, '): ', trim(message)
    call MPI_Finalize(e)
    error stop 1
  end subroutine fail_collective

  ! A local call failed: other ranks may wait in a collective, stop the job.
  subroutine fail_local(call_name, rc)
    character(len=*), intent(in) :: call_name
    integer, intent(in) :: rc
    character(len=1024) :: message
    integer :: e, me
    call MPI_Comm_rank(MPI_COMM_WORLD, me, e)
    call FTI_LastError(message)
    write (error_unit, '(a, i0, a, a, a, i0, a, a)') 'heatdis: rank ', me, ': ', call_name, ' failed (', rc, '): ', &
      trim(message)
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail_local

  ! Fills the ghost rows from the neighbours (MPI_PROC_NULL keeps the outer ones).
  subroutine exchange_halos()
    integer :: n, e
    n = cols + 2
    call MPI_Sendrecv(h(:, 1), n, MPI_DOUBLE_PRECISION, up, 0, h(:, rows + 1), n, MPI_DOUBLE_PRECISION, down, 0, &
                      comm, MPI_STATUS_IGNORE, e)
    call MPI_Sendrecv(h(:, rows), n, MPI_DOUBLE_PRECISION, down, 1, h(:, 0), n, MPI_DOUBLE_PRECISION, up, 1, &
                      comm, MPI_STATUS_IGNORE, e)
  end subroutine exchange_halos

  ! One Jacobi step, in the C example's order of operations.
  subroutine jacobi_step()
    integer :: i, j
    do i = 1, rows
      do j = 1, cols
        g(j, i) = 0.25_real64 * (h(j, i - 1) + h(j, i + 1) + h(j - 1, i) + h(j + 1, i))
      end do
    end do
    h(1:cols, 1:rows) = g(1:cols, 1:rows)
  end subroutine jacobi_step

  ! FNV-1a over bytes, modulo 2**64.
  function fnv1a_bytes(hash, bytes) result(out)
    integer(wide), intent(in) :: hash
    integer(int8), intent(in) :: bytes(:)
    integer(wide) :: out
    integer :: k
    out = hash
    do k = 1, size(bytes)
      out = ieor(out, iand(int(bytes(k), wide), 255_wide))
      out = modulo(out * fnv_prime, two_64)
    end do
  end function fnv1a_bytes

  ! The eight bytes of v, least significant first (whatever the machine).
  function le_bytes(v) result(bytes)
    integer(int64), intent(in) :: v
    integer(int8) :: bytes(8)
    integer :: k
    do k = 1, 8
      bytes(k) = int(iand(shiftr(v, 8 * (k - 1)), 255_int64) - merge(256_int64, 0_int64, &
                     iand(shiftr(v, 8 * (k - 1)), 255_int64) > 127), int8)
    end do
  end function le_bytes

  ! The 64 bits of a value in [0, 2**64) as a (two's complement) int64.
  integer(int64) function to_int64(v)
    integer(wide), intent(in) :: v
    if (v >= 2_wide**63) then
      to_int64 = int(v - two_64, int64)
    else
      to_int64 = int(v, int64)
    end if
  end function to_int64

  ! printf's "%016" PRIx64: 16 lowercase hex digits.
  function hex16(v) result(text)
    integer(wide), intent(in) :: v
    character(len=16) :: text
    integer :: k
    write (text, '(z16.16)') v
    do k = 1, 16
      if (text(k:k) >= 'A' .and. text(k:k) <= 'F') text(k:k) = achar(iachar(text(k:k)) + 32)
    end do
  end function hex16

  ! printf's "%.10f".
  function fixed10(x) result(text)
    real(real64), intent(in) :: x
    character(len=64) :: text
    write (text, '(f0.10)') x
    if (text(1:1) == '.') text = '0' // text
  end function fixed10

end program heatdis
