! A program written for SCR's own Fortran interface, in fixed form:
! INCLUDE 'scrf.h' and the calls as external subroutines (mlckpt_scrf).
! Launch 1 writes one stream file per rank in dataset ckpt.1, launch 2
! restarts from it and reads the same bytes back (run_launches.sh: the
! working directory is the work directory, argument 2 the launch). Every
! path is relative: the prefix is the working directory.
      PROGRAM SCRF_INCLUDE
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INCLUDE 'scrf.h'
      INTEGER LAUNCH, IERR, IERROR, RANK, FLAG, VALID, I, UNIT
      INTEGER DATA(500), BACK(500)
      CHARACTER*32 ARG
      CHARACTER*(SCR_MAX_FILENAME) NAME, FNAME, ROUTED, VAL
      CALL GET_COMMAND_ARGUMENT(2, ARG)
      READ (ARG, *) LAUNCH
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL SCR_CONFIG('SCR_CACHE_BASE=cache', VAL, IERROR)
      CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_CONFIG')
      CALL SCR_CONFIG('MLCKPT_NODE_SIZE=2', VAL, IERROR)
      CALL SCR_CONFIG('SCR_CACHE_BYPASS=0', VAL, IERROR)
      CALL SCR_CONFIG('SCR_COPY_TYPE=PARTNER', VAL, IERROR)
      CALL SCR_CONFIG('SCR_COPY_TYPE', VAL, IERROR)
      CALL CHECK(IERROR .EQ. SCR_SUCCESS .AND. VAL .EQ. 'PARTNER',
     &           'SCR_CONFIG query')
      CALL SCR_INIT(IERROR)
      CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_INIT')
      DO I = 1, 500
        DATA(I) = I * 1000 + RANK
      END DO
      WRITE (FNAME, '(A, I0, A)') 'ckpt.1/rank_', RANK, '.dat'
      CALL SCR_HAVE_RESTART(FLAG, NAME, IERROR)
      CALL CHECK(IERROR .EQ. SCR_SUCCESS .AND. FLAG .EQ. LAUNCH - 1,
     &           'SCR_HAVE_RESTART')
      IF (LAUNCH .EQ. 1) THEN
        CALL SCR_START_OUTPUT('ckpt.1', SCR_FLAG_CHECKPOINT, IERROR)
        CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_START_OUTPUT')
      ELSE
        CALL CHECK(NAME .EQ. 'ckpt.1', 'the dataset name')
        CALL SCR_START_RESTART(NAME, IERROR)
        CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_START_RESTART')
      END IF
      CALL SCR_ROUTE_FILE(FNAME, ROUTED, IERROR)
      CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_ROUTE_FILE')
      OPEN (NEWUNIT=UNIT, FILE=ROUTED, ACCESS='STREAM',
     &      FORM='UNFORMATTED')
      IF (LAUNCH .EQ. 1) THEN
        WRITE (UNIT) DATA
        CLOSE (UNIT)
        CALL SCR_COMPLETE_OUTPUT(1, IERROR)
        CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_COMPLETE_OUTPUT')
      ELSE
        READ (UNIT) BACK
        CLOSE (UNIT)
        VALID = 0
        IF (ALL(BACK .EQ. DATA)) VALID = 1
        CALL CHECK(VALID .EQ. 1, 'the bytes read back')
        CALL SCR_COMPLETE_RESTART(VALID, IERROR)
        CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_COMPLETE_RESTART')
      END IF
      CALL SCR_FINALIZE(IERROR)
      CALL CHECK(IERROR .EQ. SCR_SUCCESS, 'SCR_FINALIZE')
      IF (RANK .EQ. 0) PRINT '(A, I0, A)', 'scrf.h: launch ', LAUNCH,
     &                                     ' passed'
      CALL MPI_FINALIZE(IERR)
      CONTAINS
      SUBROUTINE CHECK(OK, WHAT)
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER E
      IF (OK) RETURN
      PRINT '(A, I0, A, A)', 'scrf.h: FAILED on rank ', RANK, ': ', WHAT
      CALL MPI_ABORT(MPI_COMM_WORLD, 1, E)
      END SUBROUTINE CHECK
      END PROGRAM SCRF_INCLUDE
