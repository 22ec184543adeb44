! HDF5 checkpoints (ckpt_io = 5) from Fortran, over three launches:
!   phase 1: groups, dataset names and shapes, the string and array forms of
!            FTI_SetAttribute, the refusals; a checkpoint at L1.
!   phase 2: recovers the L1 checkpoint bit for bit; new values, a
!            checkpoint at L4.
!   phase 3: recovers the L4 checkpoint bit for bit.
! Between the launches, hdf5_check.py reads the files with h5dump: the
! names, groups, shapes (dimension arrays are in C order: a(4, 3) is
! described as [3, 4]) and attributes.
program hdf5_datasets
  use, intrinsic :: iso_c_binding
  use mpi
  use fti
  use test_checks
  implicit none

  integer, parameter :: nx = 4, ny = 3
  integer :: phase, ierr, comm, rank, status, i, j, k
  character(len=512) :: config, arg
  type(FTIT_H5Group) :: fields, physics, blobs, other
  real(c_double), target :: temperature(nx, ny)
  integer(c_int), target :: steps(5)
  integer(c_int), target :: grid(2, 3, 4)
  real(c_double), target :: time
  integer(c_int64_t), allocatable :: too_many(:)

  call start_checks('hdf5 datasets')
  call get_command_argument(1, config)
  call get_command_argument(2, arg)
  read (arg, *) phase
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Init')
  call MPI_Comm_rank(comm, rank, ierr)

  ! The same protections, groups and datasets at every launch.
  temperature = 0
  steps = 0
  grid = 0
  time = 0
  call FTI_Protect(1, temperature, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(1)')
  call FTI_Protect(2, steps, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(2)')
  call FTI_Protect(3, grid, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(3)')
  call FTI_Protect(4, time, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(4)')

  call FTI_InitGroup(fields, 'fields', ierr)
  call expect(ierr, FTI_SCES, 'FTI_InitGroup(fields)')
  call FTI_InitGroup(physics, 'physics', fields, ierr)
  call expect(ierr, FTI_SCES, 'FTI_InitGroup(physics, fields)')
  if (text(physics%name) /= 'physics' .or. text(physics%fullName) /= '/fields/physics') &
    call fail('group names: ' // text(physics%name) // ' ' // text(physics%fullName))
  call FTI_InitGroup(blobs, 'blobs', ierr)
  call expect(ierr, FTI_SCES, 'FTI_InitGroup(blobs)')
  ! As in C, the application's structure keeps the old name.
  call FTI_RenameGroup(blobs, 'renamed', ierr)
  call expect(ierr, FTI_SCES, 'FTI_RenameGroup')
  if (text(blobs%name) /= 'blobs') call fail('FTI_RenameGroup changed the structure')

  ! temperature(nx, ny): C order, the slowest-varying dimension first.
  call FTI_DefineDataset(1, 2, [ny, nx], 'temperature', physics, ierr)
  call expect(ierr, FTI_SCES, 'FTI_DefineDataset(1)')
  call FTI_DefineDataset(2, 1, [5], 'steps', ierr)  ! group unchanged: the root
  call expect(ierr, FTI_SCES, 'FTI_DefineDataset(2)')
  call FTI_DefineDataset(3, 3, [4, 3, 2], 'grid', blobs, ierr)
  call expect(ierr, FTI_SCES, 'FTI_DefineDataset(3)')
  ! Variable 4 keeps the defaults: Dataset_4 in the root group.

  ! FTI's forms of FTI_SetAttribute: a string, an integer(8) or an
  ! integer(4) array; values in the order given.
  call FTI_SetAttribute(2, 'steps of the run', FTI_ATTRIBUTE_NAME, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SetAttribute(2, name)')
  call FTI_SetAttribute(2, [5_c_int64_t], FTI_ATTRIBUTE_DIM, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SetAttribute(2, int8 dim)')
  call FTI_SetAttribute(3, [2_c_int32_t, 3_c_int32_t, 4_c_int32_t], FTI_ATTRIBUTE_DIM, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SetAttribute(3, int4 dim)')
  call FTI_SetAttribute(3, 'Fortran grid(2, 3, 4)', FTI_ATTRIBUTE_NAME, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SetAttribute(3, name)')
  ! As in FTI, a form whose flag is not set does nothing: Dataset_4 gets
  ! neither attribute.
  call FTI_SetAttribute(4, 'never written', FTI_ATTRIBUTE_DIM, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SetAttribute(4, string, dim flag)')
  call FTI_SetAttribute(4, [1_c_int64_t], FTI_ATTRIBUTE_NAME, ierr)
  call expect(ierr, FTI_SCES, 'FTI_SetAttribute(4, array, name flag)')

  ! Refusals.
  call FTI_InitGroup(other, 'physics', fields, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_InitGroup of a name taken')
  call FTI_InitGroup(other, 'a/b', ierr)
  call expect(ierr, FTI_NSCS, "FTI_InitGroup of a name with '/'")
  call FTI_DefineDataset(1, 2, [nx, nx], 'temperature', physics, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_DefineDataset of the wrong element count')
  call FTI_DefineDataset(1, 3, [ny, nx], 'temperature', physics, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_DefineDataset of a rank beyond dims')
  call FTI_DefineDataset(9, 1, [1], 'nobody', ierr)
  call expect(ierr, FTI_NSCS, 'FTI_DefineDataset of an unprotected id')
  call FTI_SetAttribute(2, [3_c_int64_t, -1_c_int64_t], FTI_ATTRIBUTE_DIM, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_SetAttribute of a negative dim')
  allocate(too_many(33))
  too_many = 1
  call FTI_SetAttribute(2, too_many, FTI_ATTRIBUTE_DIM, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_SetAttribute of 33 dims')
  call FTI_SetAttribute(9, 'nobody', FTI_ATTRIBUTE_NAME, ierr)
  call expect(ierr, FTI_NSCS, 'FTI_SetAttribute of an unprotected id')

  if (phase == 1) then
    call fill(1)
    call FTI_Checkpoint(1, FTI_L1, ierr)
    call expect(ierr, FTI_DONE, 'FTI_Checkpoint(L1)')
    call MPI_Finalize(ierr)  ! no FTI_Finalize: the next launch restarts
    stop
  end if

  call FTI_Status(status)
  call expect(status, 1, 'FTI_Status')
  call FTI_Recover(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Recover')
  call check(phase - 1)

  if (phase == 2) then
    call fill(2)
    call FTI_Checkpoint(2, FTI_L4, ierr)
    call expect(ierr, FTI_DONE, 'FTI_Checkpoint(L4)')
    call MPI_Finalize(ierr)
    stop
  end if

  if (rank == 0) print '(a)', 'hdf5 datasets: L1 and L4 recovered bit for bit'
  call FTI_Finalize(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Finalize')
  call MPI_Finalize(ierr)

contains

  ! Values of version v; hdf5_check.py computes the same ones.
  subroutine fill(v)
    integer, intent(in) :: v
    do j = 1, ny
      do i = 1, nx
        temperature(i, j) = 1000 * v + 100 * rank + 10 * j + i + 0.25d0
      end do
    end do
    steps = [(1000 * v + 100 * rank + i, i = 1, 5)]
    do k = 1, 4
      do j = 1, 3
        do i = 1, 2
          grid(i, j, k) = 1000 * v + 100 * rank + 10 * k + 3 * j + i
        end do
      end do
    end do
    time = v + rank / 3.0d0  ! not a short binary fraction
  end subroutine fill

  subroutine check(v)
    integer, intent(in) :: v
    real(c_double) :: t(nx, ny), s
    integer(c_int) :: st(5), g(2, 3, 4)
    t = temperature
    st = steps
    g = grid
    s = time
    call fill(v)
    if (any(transfer(t, 0_c_int64_t, size(t)) /= transfer(temperature, 0_c_int64_t, size(t)))) call fail('temperature')
    if (any(st /= steps)) call fail('steps')
    if (any(g /= grid)) call fail('grid')
    if (transfer(s, 0_c_int64_t) /= transfer(time, 0_c_int64_t)) call fail('time')
  end subroutine check

  ! A NUL-terminated C character array as a Fortran string.
  function text(chars) result(s)
    character(kind=c_char), intent(in) :: chars(:)
    character(len=:), allocatable :: s
    integer :: n
    n = 0
    do while (n < size(chars))
      if (chars(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function text

end program hdf5_datasets
