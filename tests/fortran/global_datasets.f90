! The global dataset calls from Fortran, in one launch: definitions (with
! integer(8) and default integer lengths, in the root group and in a
! group), subsets, updates, FTI_GetDatasetRank and FTI_GetDatasetSpan, and
! the refusals (unknown ids, rank mismatches, arrays too short).
! Lengths, offsets and counts are in C order, slowest-varying first: the
! rank's block a(nx, ny) of a global nx by (ny * ranks) array is the subset
! at offset [rank * ny, 0] of count [ny, nx].
program global_datasets
  use, intrinsic :: iso_c_binding
  use mpi
  use fti
  use test_checks
  implicit none

  integer, parameter :: nx = 5, ny = 3
  integer :: ierr, comm, rank, ranks, r
  character(len=512) :: config
  type(FTIT_H5Group) :: mesh
  real(c_double), target :: a(nx, ny)
  integer(c_int), target :: counts(4), loose
  integer(c_int64_t) :: span(3), short(1)

  call start_checks('global datasets')
  call get_command_argument(1, config)
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Init')
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, ranks, ierr)

  a = rank
  counts = rank
  loose = 0
  call FTI_Protect(1, a, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(1)')
  call FTI_Protect(2, counts, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(2)')
  call FTI_Protect(3, loose, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(3)')
  call FTI_InitGroup(mesh, 'mesh', ierr)
  call expect(ierr, FTI_SCES, 'FTI_InitGroup')

  ! Definitions: integer(8) lengths in the root group; default integer
  ! lengths in a group.
  call FTI_DefineGlobalDataset(10, 2, [int(ny * ranks, c_int64_t), int(nx, c_int64_t)], 'field', FTI_REAL8, ierr)
  call expect(ierr, FTI_SCES, 'FTI_DefineGlobalDataset(10)')
  call FTI_DefineGlobalDataset(20, 1, [4 * ranks], 'counts', mesh, FTI_INTEGER4, ierr)
  call expect(ierr, FTI_SCES, 'FTI_DefineGlobalDataset(20, mesh)')

  call FTI_GetDatasetRank(10, r, ierr)
  call expect(ierr, FTI_SCES, 'FTI_GetDatasetRank(10)')
  call expect(r, 2, 'the rank of global dataset 10')
  call FTI_GetDatasetRank(20, r, ierr)
  call expect(r, 1, 'the rank of global dataset 20')
  call FTI_GetDatasetSpan(10, 2, span, ierr)
  call expect(ierr, FTI_SCES, 'FTI_GetDatasetSpan(10)')
  if (any(span /= [int(ny * ranks, c_int64_t), int(nx, c_int64_t), 0_c_int64_t])) call fail('span of 10')
  call FTI_GetDatasetSpan(20, 1, span, ierr)
  call expect(ierr, FTI_SCES, 'FTI_GetDatasetSpan(20)')
  if (span(1) /= 4 * ranks) call fail('span of 20')

  ! Subsets: this rank's rows (C order), with both kinds of integers.
  call FTI_AddSubset(1, 2, [int(rank * ny, c_int64_t), 0_c_int64_t], [int(ny, c_int64_t), int(nx, c_int64_t)], &
                     10, ierr)
  call expect(ierr, FTI_SCES, 'FTI_AddSubset(1, 10)')
  call FTI_AddSubset(2, 1, [4 * rank], [4], 20, ierr)
  call expect(ierr, FTI_SCES, 'FTI_AddSubset(2, 20)')

  ! Updates: a larger global array, the subset moved within it.
  call FTI_UpdateGlobalDataset(10, 2, [int(ny * ranks + ny, c_int64_t), int(nx, c_int64_t)], ierr)
  call expect(ierr, FTI_SCES, 'FTI_UpdateGlobalDataset(10)')
  call FTI_GetDatasetSpan(10, 2, span, ierr)
  if (any(span(1:2) /= [int(ny * ranks + ny, c_int64_t), int(nx, c_int64_t)])) call fail('span after update')
  call FTI_UpdateSubset(1, 2, [int(rank * ny + ny, c_int64_t), 0_c_int64_t], [int(ny, c_int64_t), int(nx, c_int64_t)], &
                        10, ierr)
  call expect(ierr, FTI_SCES, 'FTI_UpdateSubset(1, 10)')
  call FTI_UpdateGlobalDataset(20, 1, [4 * ranks], ierr)
  call expect(ierr, FTI_SCES, 'FTI_UpdateGlobalDataset(20, default integer)')
  call FTI_UpdateSubset(2, 1, [4 * rank], [4], 20, ierr)
  call expect(ierr, FTI_SCES, 'FTI_UpdateSubset(2, 20, default integer)')

  ! Refusals by the library: unknown ids, a taken id, rank mismatches.
  call FTI_DefineGlobalDataset(10, 1, [4], 'again', FTI_REAL8, ierr)
  call expect_error(ierr, 'FTI_DefineGlobalDataset of a taken id', 'already taken')
  call FTI_DefineGlobalDataset(30, 1, [4], 'bad type', 12345, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_DefineGlobalDataset of an unknown type')
  call FTI_GetDatasetRank(99, r, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_GetDatasetRank(99)')
  call expect(r, FTI_NSCS, 'the rank of an unknown global dataset')
  call FTI_GetDatasetSpan(99, 1, span, ierr)
  call expect_error(ierr, 'FTI_GetDatasetSpan(99)', 'global dataset id 99 is unknown')
  call FTI_GetDatasetSpan(10, 3, span, ierr)
  call expect_error(ierr, 'FTI_GetDatasetSpan of the wrong rank', 'has rank 2, not 3')
  if (any(span /= 0)) call fail('span after a refusal')
  call FTI_AddSubset(3, 1, [0], [1], 99, ierr)
  call expect_error(ierr, 'FTI_AddSubset to an unknown global dataset', 'global dataset id 99 is unknown')
  call FTI_AddSubset(3, 1, [0], [1], 10, ierr)
  call expect_error(ierr, 'FTI_AddSubset of the wrong rank', 'has rank 2, but the subset has rank 1')
  call FTI_AddSubset(42, 2, [0, 0], [1, 1], 10, ierr)
  call expect_error(ierr, 'FTI_AddSubset of an unprotected variable', 'variable id 42 is not protected')
  call FTI_UpdateGlobalDataset(99, 1, [4], ierr)
  call expect_error(ierr, 'FTI_UpdateGlobalDataset(99)', 'global dataset id 99 is unknown')
  call FTI_UpdateSubset(3, 2, [0, 0], [1, 1], 10, ierr)
  call expect_error(ierr, 'FTI_UpdateSubset of a variable never added', 'is not a subset of global dataset 10')
  call FTI_UpdateSubset(1, 1, [0], [1], 10, ierr)
  call expect_error(ierr, 'FTI_UpdateSubset of the wrong rank', 'but the subset has rank 1')
  ! No variate restart: there is no dimension to recover.
  call FTI_RecoverDatasetDimension(10, ierr)
  call expect_error(ierr, 'FTI_RecoverDatasetDimension', 'this is no variate restart')
  call FTI_RecoverDatasetDimension(99, ierr)
  call expect_error(ierr, 'FTI_RecoverDatasetDimension(99)', 'global dataset id 99 is unknown')

  ! Refusals by the module: rank beyond the arrays given (nothing reaches C).
  call FTI_DefineGlobalDataset(40, 3, [4, 4], 'short', FTI_REAL8, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_DefineGlobalDataset of a rank beyond dims')
  call FTI_AddSubset(1, 2, [0_c_int64_t, 0_c_int64_t], [1_c_int64_t], 10, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_AddSubset of a rank beyond count')
  call FTI_GetDatasetSpan(10, 2, short, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_GetDatasetSpan into an array too short')
  call FTI_GetDatasetRank(40, r, ierr)
  call expect(ierr, FTI_NSCS, 'global dataset 40 was not defined')

  if (rank == 0) print '(a)', 'global datasets: every call as expected'
  call FTI_Finalize(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Finalize')
  call MPI_Finalize(ierr)

end program global_datasets
