! Every call of the module besides the FTI_Protect matrix, over two launches:
! derived types through the c_ptr form (opaque and composite types), named
! ids, incremental checkpoints, error bounds, stored sizes, per-variable recovery,
! FTI_Realloc of a C buffer, the error message and the version.
program api_calls
  use, intrinsic :: iso_c_binding
  use mpi
  use fti
  use test_checks
  implicit none

  type, bind(C) :: particle
    real(c_double) :: position(3)
    integer(c_int) :: charge
    integer(c_int) :: flags
  end type particle

  interface
    function c_malloc(bytes) bind(C, name="malloc") result(p)
      import :: c_size_t, c_ptr
      integer(c_size_t), value :: bytes
      type(c_ptr) :: p
    end function c_malloc
    subroutine c_free(p) bind(C, name="free")
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine c_free
  end interface

  integer :: phase, ierr, comm, rank, status, opaque, composite, named_id, id, i
  character(len=512) :: config, arg
  character(len=1024) :: message
  character(len=32) :: version
  type(particle), allocatable, target :: particles(:)
  type(particle), allocatable, target :: more(:)
  integer(c_int64_t) :: stored
  type(c_ptr) :: buffer
  real(c_double), pointer :: values(:)
  integer, target :: counter
  type(particle) :: one  ! for c_sizeof

  call start_checks('api calls')
  call get_command_argument(1, config)
  call get_command_argument(2, arg)
  read (arg, *) phase
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Init')
  call MPI_Comm_rank(comm, rank, ierr)

  call FTI_VersionString(version)
  if (FTI_VersionNumber() <= 0 .or. len_trim(version) == 0) call fail('version')

  opaque = FTI_InitType(int(c_sizeof(one)))
  if (opaque < 0) call fail('FTI_InitType')
  ! As FTI's module: the size may be of kind c_size_t (FTI's programs pass sizeof).
  if (FTI_InitType(c_sizeof(one)) < 0) call fail('FTI_InitType(c_size_t)')
  composite = FTI_InitCompositeType('particle', c_sizeof(one))
  if (composite < 0) call fail('FTI_InitCompositeType')
  ! As FTI's module: the field calls are functions.
  ierr = FTI_AddVectorField(composite, 'position', FTI_REAL8, 0_c_size_t, 1, [3])
  call expect(ierr, FTI_SCES, 'FTI_AddVectorField')
  ierr = FTI_AddScalarField(composite, 'charge', FTI_INTEGER4, 24_c_size_t)
  call expect(ierr, FTI_SCES, 'FTI_AddScalarField')
  ierr = FTI_AddScalarField(composite, 'flags', FTI_INTEGER4, 28_c_size_t)
  call expect(ierr, FTI_SCES, 'FTI_AddScalarField')

  ! As FTI's module: the name calls are subroutines.
  call FTI_setIDFromString('counter', named_id)
  if (named_id < 0) call fail('FTI_setIDFromString')
  call FTI_getIDFromString('counter', id)
  if (id /= named_id) call fail('FTI_getIDFromString')
  call FTI_getIDFromString('nobody', id)
  if (id /= FTI_NSCS) call fail('FTI_getIDFromString of an unknown name')

  if (phase == 1) then
    allocate(particles(10 + rank), more(5))
    do i = 1, size(particles)
      particles(i) = particle([real(i, c_double), real(rank, c_double), 0.5d0], i * 3, rank)
    end do
    do i = 1, size(more)
      more(i) = particle([0.25d0 * i, 1.0d0, 2.0d0], -i, 7)
    end do
    counter = 42 + rank
    buffer = c_malloc(int(8 * (100 + rank), c_size_t))
    call c_f_pointer(buffer, values, [100 + rank])
    values = [(real(i * (rank + 1), c_double), i = 1, 100 + rank)]
    call FTI_Protect(1, c_loc(particles), size(particles), opaque, ierr)
    call expect(ierr, FTI_SCES, 'FTI_Protect(c_ptr, opaque)')
    call FTI_Protect(2, c_loc(more), int(size(more), c_int64_t), composite, ierr)
    call expect(ierr, FTI_SCES, 'FTI_Protect(c_ptr, composite)')
    call FTI_Protect(named_id, counter, ierr)
    call expect(ierr, FTI_SCES, 'FTI_Protect(named)')
    call FTI_Protect(3, buffer, int(100 + rank, c_int64_t), FTI_REAL8, ierr)
    call expect(ierr, FTI_SCES, 'FTI_Protect(C buffer)')
    ! An error bound: taken for a double (no level compresses here, so it
    ! stays exact), refused for a variable that is not float or double.
    call FTI_SetErrorBound(3, 1.0d-6, ierr)
    call expect(ierr, FTI_SCES, 'FTI_SetErrorBound(3)')
    call FTI_SetErrorBound(1, 1.0d-6, ierr)
    call expect(ierr, FTI_NSCS, 'FTI_SetErrorBound(1), a derived type')
    ! An incremental checkpoint, one variable at a time.
    call FTI_InitICP(1, FTI_L1, .true., ierr)
    call expect(ierr, FTI_SCES, 'FTI_InitICP')
    do i = 1, 3
      call FTI_AddVarICP(i, ierr)
      call expect(ierr, FTI_SCES, 'FTI_AddVarICP')
    end do
    call FTI_AddVarICP(named_id, ierr)
    call expect(ierr, FTI_SCES, 'FTI_AddVarICP')
    call FTI_FinalizeICP(ierr)
    call expect(ierr, FTI_DONE, 'FTI_FinalizeICP')
    ! Nothing left to the background at L1: returns at once.
    call FTI_WaitBackground(ierr)
    call expect(ierr, FTI_SCES, 'FTI_WaitBackground')
    ! A level that does not exist: refused, with a message.
    call FTI_Checkpoint(2, 10, ierr)
    call expect(ierr, FTI_NSCS, 'FTI_Checkpoint at level 10')
    call FTI_LastError(message)
    if (index(message, 'checkpoint level 10 is invalid') == 0) call fail('FTI_LastError: ' // trim(message))
    call MPI_Finalize(ierr)  ! no FTI_Finalize: the next launch restarts
    stop
  end if

  call FTI_Status(status)
  call expect(status, 1, 'FTI_Status')
  ! Sizes come from the checkpoint; arrays are made to fit, then protected.
  call FTI_GetStoredSize(1, stored)
  if (stored /= (10 + rank) * c_sizeof(one)) call fail('FTI_GetStoredSize(1)')
  allocate(particles(stored / c_sizeof(one)), more(5))
  call FTI_Protect(1, c_loc(particles), size(particles), opaque, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(1)')
  call FTI_Protect(2, c_loc(more), size(more), composite, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(2)')
  call FTI_Protect(named_id, counter, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(named)')
  ! A C buffer of the wrong size, grown by FTI_Realloc to the stored size.
  buffer = c_malloc(8_c_size_t)
  call FTI_Protect(3, buffer, 1, FTI_REAL8, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Protect(3)')
  call FTI_Realloc(3, buffer, ierr)
  call expect(ierr, FTI_SCES, 'FTI_Realloc')
  call c_f_pointer(buffer, values, [100 + rank])
  ! Variable by variable, in any order.
  call FTI_RecoverVarInit(ierr)
  call expect(ierr, FTI_SCES, 'FTI_RecoverVarInit')
  do i = 3, 1, -1
    call FTI_RecoverVar(i, ierr)
    call expect(ierr, FTI_SCES, 'FTI_RecoverVar')
  end do
  call FTI_RecoverVar(named_id, ierr)
  call expect(ierr, FTI_SCES, 'FTI_RecoverVar(named)')
  call FTI_RecoverVarFinalize(ierr)
  call expect(ierr, FTI_SCES, 'FTI_RecoverVarFinalize')

  if (counter /= 42 + rank) call fail('counter')
  do i = 1, size(particles)
    if (any(particles(i)%position /= [real(i, c_double), real(rank, c_double), 0.5d0]) .or. &
        particles(i)%charge /= i * 3 .or. particles(i)%flags /= rank) call fail('particles')
  end do
  do i = 1, size(more)
    if (any(more(i)%position /= [0.25d0 * i, 1.0d0, 2.0d0]) .or. more(i)%charge /= -i .or. more(i)%flags /= 7) &
      call fail('composite particles')
  end do
  if (any(values /= [(real(i * (rank + 1), c_double), i = 1, 100 + rank)])) call fail('C buffer')
  if (rank == 0) print '(a)', 'api calls: every variable recovered bit for bit'
  call FTI_Finalize(ierr)
  call expect(ierr, FTI_SCES, 'FTI_Finalize')
  call c_free(buffer)
  deallocate(particles, more)
  call MPI_Finalize(ierr)

end program api_calls
