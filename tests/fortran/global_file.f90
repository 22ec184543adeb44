! One global HDF5 file (FTI_L4_H5_SINGLE) from Fortran, and the restart
! from it on another number of ranks ([restart] failure = 3):
!   phase 1 (4 ranks): two global datasets, each rank's blocks added as
!     subsets; two global files (versions 1 and 2); no FTI_Finalize.
!   phase 2 (2 ranks, failure = 3): FTI_Status is 3; the shape comes back
!     from the file (FTI_RecoverDatasetDimension), FTI_GetConfig names the
!     file restarted from; every block of the new
!     decomposition is recovered bit for bit (version 2).
! Global array t(nx, ny) is the global dataset "temperature" of shape
! [ny, nx] (C order); each rank holds columns j of t, that is rows of the
! dataset. Global array counts(nc) is "/fields/counts".
program global_file
  use, intrinsic :: iso_c_binding
  use mpi
  use fti
  use test_checks
  implicit none

  integer, parameter :: nx = 5, ny = 12, nc = 24
  integer, parameter :: did_t = 1, did_c = 2
  integer :: phase, ierr, comm, rank, ranks, status, rk, w, wc
  character(len=512) :: config, arg
  type(FTIT_H5Group) :: fields
  real(c_double), allocatable, target :: t(:, :)
  integer(c_int), allocatable, target :: counts(:)
  integer(c_int), target :: step
  integer(c_int64_t) :: span(2)
  type(FTIT_allConfiguration) :: cfg

  call start_checks('global file')
  call get_command_argument(1, config)
  call get_command_argument(2, arg)
  read (arg, *) phase
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Init')
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, ranks, ierr)

  ! This rank's blocks: w columns of t, wc elements of counts.
  w = ny / ranks
  wc = nc / ranks
  allocate(t(nx, w), counts(wc))
  t = -1
  counts = -1
  step = -7

  call FTI_InitGroup(fields, 'fields', ierr)
  call expect(ierr, FTI_SCES, 'FTI_InitGroup')
  call FTI_DefineGlobalDataset(did_t, 2, [ny, nx], 'temperature', FTI_REAL8, ierr)
  call expect(ierr, FTI_SCES, 'FTI_DefineGlobalDataset(temperature)')
  call FTI_DefineGlobalDataset(did_c, 1, [int(nc, c_int64_t)], 'counts', fields, FTI_INTEGER4, ierr)
  call expect(ierr, FTI_SCES, 'FTI_DefineGlobalDataset(counts)')
  call FTI_Protect(1, t, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(1)')
  call FTI_AddSubset(1, 2, [rank * w, 0], [w, nx], did_t, ierr)
  call expect(ierr, FTI_SCES, 'FTI_AddSubset(1)')
  call FTI_Protect(2, counts, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(2)')
  call FTI_AddSubset(2, 1, [rank * wc], [wc], did_c, ierr)
  call expect(ierr, FTI_SCES, 'FTI_AddSubset(2)')
  call FTI_Protect(3, step, ierr)  ! in no global dataset
  call expect(ierr, FTI_SCES, 'FTI_Protect(3)')

  if (phase == 1) then
    call fill(1)
    call FTI_Checkpoint(1, FTI_L4_H5_SINGLE, ierr)
    call expect(ierr, FTI_SCES, 'FTI_Checkpoint(1, FTI_L4_H5_SINGLE)')
    call fill(2)
    call FTI_Checkpoint(2, FTI_L4_H5_SINGLE, ierr)
    call expect(ierr, FTI_SCES, 'FTI_Checkpoint(2, FTI_L4_H5_SINGLE)')
    call MPI_Finalize(ierr)  ! no FTI_Finalize: the next launch restarts
    stop
  end if

  call FTI_Status(status)
  call expect(status, 3, 'FTI_Status (a variate restart)')
  cfg = FTI_GetConfig(config, comm)
  if (.not. cfg%configuration%h5SingleFileEnable) call fail('configuration%h5SingleFileEnable')
  if (index(cfg%execution%h5SingleFileReco, '/vpr/VPR-h5-ID00000002.h5') == 0) &
    call fail('execution%h5SingleFileReco: ' // trim(cfg%execution%h5SingleFileReco))
  ! As a restarting application may: forget the shape, take the stored one.
  call FTI_UpdateGlobalDataset(did_t, 2, [0, 0], ierr)
  call expect(ierr, FTI_SCES, 'FTI_UpdateGlobalDataset(zeros)')
  call FTI_RecoverDatasetDimension(did_t, ierr)
  call expect(ierr, FTI_SCES, 'FTI_RecoverDatasetDimension')
  call FTI_GetDatasetRank(did_t, rk, ierr)
  call expect(rk, 2, 'FTI_GetDatasetRank')
  call FTI_GetDatasetSpan(did_t, 2, span, ierr)
  call expect(ierr, FTI_SCES, 'FTI_GetDatasetSpan')
  if (any(span /= [int(ny, c_int64_t), int(nx, c_int64_t)])) call fail('the recovered shape')
  call FTI_Recover(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Recover')
  call check(2)
  if (rank == 0) print '(a, i0, a)', 'global file: recovered bit for bit on ', ranks, ' ranks'
  call FTI_Finalize(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Finalize')
  call MPI_Finalize(ierr)

contains

  ! By global index, so that any decomposition computes the same values;
  ! hdf5_check.py computes them too.
  real(c_double) function t_value(i, j, v)
    integer, intent(in) :: i, j, v
    t_value = 1000 * v + 10 * j + i + 0.5d0  ! exact in the 6 digits h5dump prints
  end function t_value

  subroutine fill(v)
    integer, intent(in) :: v
    integer :: i, j
    do j = 1, w
      do i = 1, nx
        t(i, j) = t_value(i, rank * w + j, v)
      end do
    end do
    counts = [(1000 * v + rank * wc + i, i = 1, wc)]
    step = v
  end subroutine fill

  subroutine check(v)
    integer, intent(in) :: v
    integer :: i, j
    do j = 1, w
      do i = 1, nx
        if (transfer(t(i, j), 0_c_int64_t) /= transfer(t_value(i, rank * w + j, v), 0_c_int64_t)) &
          call fail('temperature')
      end do
    end do
    if (any(counts /= [(1000 * v + rank * wc + i, i = 1, wc)])) call fail('counts')
    call expect(step, -7, 'a variable in no global dataset keeps its value')
  end subroutine check

end program global_file
