! Prints the kinds this compiler has, one line per type, for the module
! generator: FTI_Protect gets a specific procedure for each of them.
program probe_kinds
  use, intrinsic :: iso_fortran_env, only: integer_kinds, real_kinds, logical_kinds
  implicit none
  print '(*(i0, :, " "))', integer_kinds
  print '(*(i0, :, " "))', real_kinds
  print '(*(i0, :, " "))', logical_kinds
end program probe_kinds
