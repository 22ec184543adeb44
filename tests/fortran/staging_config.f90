! Staging and FTI_GetConfig from Fortran:
!   phase 1 (ckpt_io = 5, enable_staging = 1): FTI_GetConfig before and
!     after FTI_Init; the stage directory; a file moved by FTI_SendFile and
!     followed with FTI_GetStageStatus to FTI_SI_SCES, then FTI_SI_NINI; a
!     move of a missing file ends in FTI_SI_FAIL; refusals.
!   phase 2 (enable_staging = 0): every staging call returns FTI_NSCS.
program staging_config
  use, intrinsic :: iso_c_binding
  use mpi
  use fti
  use test_checks
  implicit none

  integer :: phase, ierr, comm, rank, ranks, request, missing, status, unit, n
  character(len=512) :: config, arg, workdir, line
  character(len=FTI_BUFS) :: dir, name
  character(len=5) :: tiny
  type(FTIT_allConfiguration) :: cfg

  call start_checks('staging and configuration')
  call get_command_argument(1, config)
  call get_command_argument(2, arg)
  read (arg, *) phase
  workdir = config(1:index(config, '/', back=.true.) - 1)
  call MPI_Init(ierr)

  ! Before FTI_Init everything is zero (and the library prints an error).
  cfg = FTI_GetConfig(config, MPI_COMM_WORLD)
  if (cfg%configuration%ioMode /= 0 .or. cfg%topology%nbProc /= 0 .or. cfg%execution%id /= ' ') &
    call fail('FTI_GetConfig before FTI_Init')

  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Init')
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, ranks, ierr)

  cfg = FTI_GetConfig(config, comm)
  call expect(cfg%configuration%ioMode, FTI_IO_HDF5, 'configuration%ioMode')
  call expect(cfg%configuration%verbosity, 2, 'configuration%verbosity')
  call expect(cfg%configuration%test, 1, 'configuration%test (local_test)')
  call expect(cfg%topology%nbProc, ranks, 'topology%nbProc')
  call expect(cfg%topology%nbApprocs, 2, 'topology%nbApprocs (application ranks per node)')
  call expect(cfg%topology%nodeSize, 2, 'topology%nodeSize')
  call expect(cfg%topology%nbHeads, 0, 'topology%nbHeads')
  call expect(cfg%topology%splitRank, rank, 'topology%splitRank')
  call expect(cfg%topology%amIaHead, 0, 'topology%amIaHead')
  call expect(cfg%execution%reco, 0, 'execution%reco')
  if (cfg%execution%id == ' ') call fail('execution%id is blank')
  if (index(cfg%configuration%localDir, trim(workdir) // '/local/') /= 1) &
    call fail('configuration%localDir: ' // trim(cfg%configuration%localDir))
  if (index(cfg%configuration%glbalDir, trim(cfg%execution%id)) == 0) &
    call fail('configuration%glbalDir: ' // trim(cfg%configuration%glbalDir))

  if (phase == 2) then
    if (cfg%configuration%stagingEnabled) call fail('configuration%stagingEnabled')
    call FTI_GetStageDir(dir, ierr)
    call expect(ierr, FTI_NSCS, 'FTI_GetStageDir without staging')
    if (dir /= ' ') call fail('FTI_GetStageDir without staging wrote ' // trim(dir))
    call FTI_SendFile('a', 'b', request, ierr)
    call expect(ierr, FTI_NSCS, 'FTI_SendFile without staging')
    call expect(request, FTI_NSCS, 'the request of FTI_SendFile without staging')
    call FTI_GetStageStatus(0, status, ierr)
    call expect(ierr, FTI_NSCS, 'FTI_GetStageStatus without staging')
    if (rank == 0) print '(a)', 'staging and configuration: staging off refused'
    call FTI_Finalize(ierr)
    call MPI_Finalize(ierr)
    stop
  end if

  if (.not. cfg%configuration%stagingEnabled) call fail('configuration%stagingEnabled')
  call FTI_GetStageDir(dir, ierr)
  call expect(ierr, FTI_SCES, 'FTI_GetStageDir')
  if (dir /= cfg%configuration%stageDir) call fail('stage directories: ' // trim(dir) // ' ' // &
                                                   trim(cfg%configuration%stageDir))
  call FTI_GetStageDir(tiny, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_GetStageDir into 5 characters')

  write (name, '(a, a, i0, a)') trim(dir), '/result-', rank, '.txt'
  open (newunit=unit, file=name, status='replace', action='write')
  write (unit, '(a, i0)') 'staged by rank ', rank
  close (unit)
  call FTI_SendFile(name, dest('result'), request, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SendFile')
  if (request < 0) call fail('the request of FTI_SendFile')
  call FTI_SendFile(trim(dir) // '/no-such-file', dest('missing'), missing, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SendFile of a missing file (fails later)')
  call FTI_SendFile(name, name, n, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_SendFile onto itself')

  call wait_for(request, FTI_SI_SCES, 'the move')
  call FTI_GetStageStatus(request, status, ierr)
  call expect(status, FTI_SI_NINI, 'the status after the final one was returned')
  call wait_for(missing, FTI_SI_FAIL, 'the move of a missing file')

  open (newunit=unit, file=dest('result'), status='old', action='read')
  read (unit, '(a)') line
  close (unit)
  write (arg, '(a, i0)') 'staged by rank ', rank
  if (line /= arg) call fail('the staged file holds ' // trim(line))
  call FTI_GetStageStatus(12345, status, ierr)
  call expect(status, FTI_SI_NINI, 'the status of an unknown request')

  if (rank == 0) print '(a)', 'staging and configuration: as expected'
  call FTI_Finalize(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Finalize')
  call MPI_Finalize(ierr)

contains

  ! WORKDIR/<what>-<rank>.txt
  function dest(what) result(path)
    character(len=*), intent(in) :: what
    character(len=600) :: path
    write (path, '(a, a, a, a, i0, a)') trim(workdir), '/', what, '-', rank, '.txt'
  end function dest

  subroutine wait_for(id, final, what)
    integer, intent(in) :: id, final
    character(len=*), intent(in) :: what
    integer :: tries, s, e
    do tries = 1, 6000
      call FTI_GetStageStatus(id, s, e)
      call expect(e, FTI_SCES, 'FTI_GetStageStatus')
      if (s /= FTI_SI_PEND .and. s /= FTI_SI_ACTV) exit
      call sleep_ms()
    end do
    call expect(s, final, what)
  end subroutine wait_for

  subroutine sleep_ms()
    real(8) :: t0
    t0 = MPI_Wtime()
    do while (MPI_Wtime() - t0 < 0.01d0)
    end do
  end subroutine sleep_ms

end program staging_config
