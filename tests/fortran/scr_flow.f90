! The module scr in SCR's documented order, over three launches that share a
! work directory (run_launches.sh: argument 1 is WORKDIR/config.fti, unused
! but for its directory; argument 2 the launch). Every IERROR and flag is
! checked, and so are the strings: trailing blanks trimmed on the way in,
! blank-padded on the way out, a failure when the output is too short.
!   1: SCR_Config (set, query, unset key, short VAL), SCR_Get_version,
!      SCR_Init, no restart, SCR_Need_checkpoint every second call,
!      dataset flow.1 (SCR_Start_output) and a second one
!      (SCR_Start_checkpoint), one stream file per rank each; SCR_Finalize.
!   2: SCR_Current('flow.1') then the restart from flow.1: the same bytes;
!      SCR_Drop('flow.1'), after which SCR_Current('flow.1') fails.
!   3: the restart from the second dataset (the newest): the same bytes;
!      SCR_Delete of it.
program scr_flow
  use, intrinsic :: iso_fortran_env, only: int8
  use mpi
  use scr
  implicit none

  integer :: launch, ierr, ierror, rank, flag
  character(len=512) :: arg, workdir
  character(len=SCR_MAX_FILENAME) :: name, started, routed, val
  character(len=4) :: short
  character(len=64) :: version

  call get_command_argument(1, arg)
  workdir = arg(1:index(arg, '/', back=.true.) - 1)
  call get_command_argument(2, arg)
  read (arg, *) launch
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! Parameters before SCR_Init, every launch: IERROR SCR_SUCCESS and VAL
  ! blank for settings (trailing blanks of CONFIG are not part of a value).
  call set('SCR_PREFIX=' // trim(workdir))
  call set('SCR_CACHE_BASE=' // trim(workdir) // '/cache')
  call set('MLCKPT_NODE_SIZE=2')
  call set('SCR_COPY_TYPE=XOR      ')
  call set('SCR_SET_SIZE=2')
  call set('SCR_FLUSH=0')
  call set('SCR_CACHE_BYPASS=0')  ! the cache (SCR 3 bypasses it by default)
  call set('SCR_CHECKPOINT_INTERVAL=2')
  call set('SCR_CACHE_SIZE=2')  ! both datasets stay in the cache

  if (launch == 1) then
    call SCR_Config('SCR_COPY_TYPE   ', val, ierror)
    call check(ierror == SCR_SUCCESS .and. val == 'XOR', 'SCR_Config query: ' // trim(val))
    call SCR_Config('SCR_HALT_SECONDS', val, ierror)
    call check(ierror /= SCR_SUCCESS .and. val == ' ', 'SCR_Config query of an unset parameter')
    call SCR_Config('SCR_PREFIX', short, ierror)
    call check(ierror /= SCR_SUCCESS .and. short == workdir(1:4), 'SCR_Config query into a short VAL')
    ! A descriptor line, then one of its settings queried (SCR's form).
    call set('STORE=/dev/shm/foo GROUP=NODE COUNT=1')
    call SCR_Config('STORE=/dev/shm/foo GROUP', val, ierror)
    call check(ierror == SCR_SUCCESS .and. val == 'NODE', 'SCR_Config descriptor query: ' // trim(val))
    call set('STORE=')
    call SCR_Get_version(version, ierror)
    call check(ierror == SCR_SUCCESS .and. index(version, 'v3.1.0') == 1, 'SCR_Get_version: ' // trim(version))
    call SCR_Get_version(short, ierror)
    call check(ierror /= SCR_SUCCESS .and. short == 'v3.1', 'SCR_Get_version into a short VERSION')
    call check(SCR_FLAG_NONE == 0 .and. SCR_FLAG_CHECKPOINT == 1 .and. SCR_FLAG_OUTPUT == 2 .and. &
               SCR_MAX_FILENAME == 1024 .and. SCR_SUCCESS == 0, 'constants')
  end if

  call SCR_Init(ierror)
  call check(ierror == SCR_SUCCESS, 'SCR_Init')
  call SCR_Should_exit(flag, ierror)
  call check(ierror == SCR_SUCCESS .and. flag == 0, 'SCR_Should_exit')

  select case (launch)
  case (1)
    name = 'stale'
    call SCR_Have_restart(flag, name, ierror)
    call check(ierror == SCR_SUCCESS .and. flag == 0 .and. name == ' ', 'SCR_Have_restart on a first launch')
    call SCR_Need_checkpoint(flag, ierror)
    call check(ierror == SCR_SUCCESS .and. flag == 0, 'SCR_Need_checkpoint, first call')
    call SCR_Need_checkpoint(flag, ierror)
    call check(ierror == SCR_SUCCESS .and. flag == 1, 'SCR_Need_checkpoint, second call')

    call SCR_Start_output('flow.1    ', SCR_FLAG_CHECKPOINT, ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Start_output')
    call SCR_Route_file(file_of('flow.1'), routed, ierror)
    call check(ierror == SCR_SUCCESS .and. ends_with(routed, file_of('')), 'SCR_Route_file: ' // trim(routed))
    call SCR_Route_file(file_of('flow.1'), short, ierror)
    call check(ierror /= SCR_SUCCESS .and. short == routed(1:4), 'SCR_Route_file into a short FILE')
    call write_bytes(routed, 1)
    call SCR_Complete_output(1, ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Complete_output')

    call SCR_Start_checkpoint(ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Start_checkpoint')
    call SCR_Route_file(file_of('second'), routed, ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Route_file in a checkpoint')
    call write_bytes(routed, 2)
    call SCR_Complete_checkpoint(1, ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Complete_checkpoint')

  case (2)
    call SCR_Current('flow.1   ', ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Current')
    call restart_and_read('flow.1', 'flow.1', 1)
    call SCR_Drop('flow.1', ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Drop')
    call SCR_Current('flow.1', ierror)
    call check(ierror /= SCR_SUCCESS, 'SCR_Current of a dropped dataset')

  case (3)
    call restart_and_read('', 'second', 2)
    call SCR_Delete(started, ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Delete ' // trim(started))
    call SCR_Current(started, ierror)
    call check(ierror /= SCR_SUCCESS, 'SCR_Current of a deleted dataset')
  end select

  call SCR_Finalize(ierror)
  call check(ierror == SCR_SUCCESS, 'SCR_Finalize')
  if (rank == 0) print '(a, i0, a)', 'scr flow: launch ', launch, ' passed'
  call MPI_Finalize(ierr)

contains

  subroutine set(config)
    character(len=*), intent(in) :: config
    val = 'not blank'
    call SCR_Config(config, val, ierror)
    call check(ierror == SCR_SUCCESS .and. val == ' ', 'SCR_Config ' // config)
  end subroutine set

  ! This rank's file of a dataset, named below the work directory.
  function file_of(dataset) result(path)
    character(len=*), intent(in) :: dataset
    character(len=SCR_MAX_FILENAME) :: path
    character(len=16) :: number
    write (number, '(i0)') rank
    path = 'rank_' // trim(number) // '.dat'
    if (dataset /= '') path = trim(workdir) // '/' // dataset // '/' // path
  end function file_of

  logical function ends_with(text, tail)
    character(len=*), intent(in) :: text, tail
    integer :: n
    n = len_trim(text) - len_trim(tail)
    ends_with = n >= 0 .and. text(n + 1:) == tail
  end function ends_with

  ! The bytes of this rank's file of dataset `which`.
  function content(which) result(bytes)
    integer, intent(in) :: which
    integer(int8), allocatable :: bytes(:)
    integer :: i
    allocate(bytes(3000 + 101 * rank + which))
    do i = 1, size(bytes)
      bytes(i) = int(mod(i * 7 + rank * 13 + which * 31, 256) - 128, int8)
    end do
  end function content

  subroutine write_bytes(path, which)
    character(len=*), intent(in) :: path
    integer, intent(in) :: which
    integer :: unit
    open (newunit=unit, file=trim(path), access='stream', form='unformatted', status='replace', action='write')
    write (unit) content(which)
    close (unit)
  end subroutine write_bytes

  ! SCR_Have_restart, SCR_Start_restart, the file read back through
  ! SCR_Route_file and compared byte for byte, SCR_Complete_restart.
  ! `expected` is the dataset's name ('' for any); sets `started`.
  subroutine restart_and_read(expected, dataset_dir, which)
    character(len=*), intent(in) :: expected, dataset_dir
    integer, intent(in) :: which
    integer(int8), allocatable :: bytes(:)
    integer :: unit, size_bytes, valid
    call SCR_Have_restart(flag, name, ierror)
    call check(ierror == SCR_SUCCESS .and. flag == 1 .and. name /= ' ', 'SCR_Have_restart')
    if (expected /= '') call check(name == expected, 'SCR_Have_restart name ' // trim(name))
    call SCR_Start_restart(started, ierror)
    call check(ierror == SCR_SUCCESS .and. started == name, 'SCR_Start_restart ' // trim(started))
    call SCR_Route_file(file_of(dataset_dir), routed, ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Route_file on restart')
    inquire (file=trim(routed), size=size_bytes)
    allocate(bytes(max(size_bytes, 0)))
    open (newunit=unit, file=trim(routed), access='stream', form='unformatted', status='old', action='read')
    read (unit) bytes
    close (unit)
    valid = 0
    if (size(bytes) == size(content(which))) then
      if (all(bytes == content(which))) valid = 1
    end if
    call check(valid == 1, 'the bytes read back from ' // trim(routed))
    call SCR_Complete_restart(valid, ierror)
    call check(ierror == SCR_SUCCESS, 'SCR_Complete_restart')
  end subroutine restart_and_read

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (ok) return
    print '(a, i0, a, a)', 'scr flow: FAILED on rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine check

end program scr_flow
