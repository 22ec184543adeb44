# The separate-node scenarios that the sanitizer build runs too: what only
# separate nodes run (the topology from host names, a node's storage seen by
# its ranks alone, the partner copy and the parity rebuilt on another node,
# heads on their own nodes, the restart's metadata sent per node, staging
# from each node, the shared L4 files written from several nodes). The
# others are labelled multinode_matrix: the optimised build runs them.
set(MLCKPT_SANITIZED_SEPARATE_NODES
    mpi.multinode.SeparateNodes.EachNodeHasItsOwnNameAndStorage.np8
    mpi.multinode.L2.OneNodeLost.np8 mpi.multinode.L3.OneNodeLost.np8
    mpi.multinode.L3Sets.TwoFailuresSurviveTwoLostNodes.np8
    mpi.multinode.heads.L2.OneNodeLost.np8
    mpi.multinode.RankMeta.EachRankReceivesItsOwnRecordsAndItsGroupsOnly.np8
    mpi.multinode.Staging.EveryFileArrivesComplete.np8
    mpi.multinode.mpiio.Roundtrip.L4.np8 mpi.multinode.container.Roundtrip.L4.np8)

# Which MPI scenarios run at which rank counts, and the outcome of each launch.
mlckpt_add_mpi_scenario(Roundtrip.L1 RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Roundtrip.L4 RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Roundtrip.MixedLevels RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Resize.GrowAndShrinkWithRealloc RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Resize.ReprotectBetweenCheckpoints RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(RecoverVar.RandomOrder RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Named.IdsSurviveRestart RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Icp.VariablesOneAtATime RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(KeepLast.RestartsFromL4 RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(KeepLast.RestartsFromL4 RANKS 4 PHASES ok ok HEADS)
mlckpt_add_mpi_scenario(KeepL4.ArchivesEveryL4Checkpoint RANKS 4 PHASES ok)
mlckpt_add_mpi_scenario(Snapshot.ShortIntervals RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Heads.ApplicationCommunicatorExcludesHeads RANKS 4 8 PHASES ok)
mlckpt_add_mpi_scenario(Heads.FailedInitReleasesHeads RANKS 4 PHASES ok)
mlckpt_add_mpi_scenario(Waiting.RanksWaitingForALateRankLeaveTheirCore RANKS 2 4 PHASES ok)
mlckpt_add_mpi_scenario(Waiting.RankLateBeyondTheBoundIsNamed RANKS 3 PHASES aborted ok)
mlckpt_add_mpi_scenario(Waiting.StoppedHeadIsNamed RANKS 2 PHASES aborted ok)
mlckpt_add_mpi_scenario(Staging.EveryFileArrivesComplete RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(Staging.EveryFileArrivesComplete RANKS 4 PHASES ok HEADS)
mlckpt_add_mpi_scenario(Staging.FullDestinationFails RANKS 2 PHASES ok)
mlckpt_add_mpi_scenario(Staging.FullDestinationFails RANKS 4 PHASES ok HEADS)
mlckpt_add_mpi_scenario(Staging.CallsFollowFti RANKS 1 PHASES ok ok)

# FTI's behaviour where FTI's own programs observe it.
foreach(level 1 2 3 4)
  mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryL${level} RANKS 4 8 PHASES ok ok)
  mlckpt_add_mpi_scenario(FtiSemantics.RollbackInPlaceL${level} RANKS 4 PHASES ok)
endforeach()
mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryL2 RANKS 8 PHASES killed ok HEADS)
mlckpt_add_mpi_scenario(FtiSemantics.FilesWhereFtiKeepsThem RANKS 8 PHASES ok ok)
mlckpt_add_mpi_scenario(FtiSemantics.FilesWhereFtiKeepsThem RANKS 8 PHASES ok ok NODES 4)
mlckpt_add_mpi_scenario(FtiSemantics.FilesNamedAfterTheRanksOfFtiInit RANKS 8 PHASES ok ok)
mlckpt_add_mpi_scenario(FtiSemantics.FilesNamedAfterTheRanksOfFtiInit RANKS 8 PHASES killed ok HEADS)
mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryL4 RANKS 4 PHASES ok ok FTIFF)
mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryL4 RANKS 4 PHASES ok ok IO 2)
mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryL4 RANKS 4 PHASES ok ok IO 4)
mlckpt_add_mpi_scenario(FtiSemantics.RollbackInPlaceL1 RANKS 1 PHASES ok)
mlckpt_add_mpi_scenario(FtiSemantics.RollbackInPlaceL4 RANKS 4 PHASES ok FTIFF)
mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryFallsBackTogether RANKS 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(FtiSemantics.SecondInitStartsOver RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(FtiSemantics.SizeMismatchIsAWarning RANKS 4 PHASES ok ok)
foreach(variant L1 L2 L3 L4 SingleReadL1 SingleReadL2)
  mlckpt_add_mpi_scenario(FtiSemantics.RetriedMixedRecoveryEnds${variant} RANKS 4 PHASES ok ok)
endforeach()
mlckpt_add_mpi_scenario(FtiSemantics.RetriedMixedRecoveryEndsL2 RANKS 4 PHASES killed ok HEADS)
mlckpt_add_mpi_scenario(FtiSemantics.InformationLines RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(FtiSemantics.DebugLinesAsFti RANKS 4 PHASES ok)
mlckpt_add_mpi_scenario(Hostile.PlantedLinksReachNothing RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Hostile.PlantedDirectoryLinksReachNothing RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(FtiSemantics.HeadsReleasedByEndw RANKS 4 8 PHASES ok ok HEADS)
mlckpt_add_mpi_scenario(FtiSemantics.HeadsRetireBeforeTheirVerdict RANKS 4 8 PHASES ok ok HEADS)
mlckpt_add_mpi_scenario(FtiSemantics.HeadsLeaveTheRestartsCheckpointUntilTheVerdict RANKS 4 PHASES killed ok HEADS)

mlckpt_add_mpi_scenario(Faults.DeletedFileFallsBackToOlderCheckpoint RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.DeletedNodeDirectoryFallsBack RANKS 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.TruncatedFileFallsBack RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.OverwrittenFileFallsBack RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.DamagedMetadataIsRestoredFromItsCopy RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.DamagedMetadataFallsBack RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.OnlyCheckpointCorruptIsNamed RANKS 1 4 8 PHASES ok ok ok)
mlckpt_add_mpi_scenario(Faults.OnlyCheckpointCorruptIsNamedAtRecoverWithSingleRead RANKS 1 4 PHASES ok ok ok)
mlckpt_add_mpi_scenario(Faults.LostMetadataIsRestoredForL1 RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.LostMetadataIsRestoredForL4 RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.LostMetadataIsRestoredForL4 RANKS 8 PHASES killed ok HEADS)
mlckpt_add_mpi_scenario(Faults.LostMetadataIsRestoredForL1 RANKS 4 PHASES ok ok FTIFF)
mlckpt_add_mpi_scenario(Faults.LostMetadataKeepsTheL1Data RANKS 1 4 PHASES ok ok ok ok)
mlckpt_add_mpi_scenario(Faults.LostMetadataKeepsTheL4Data RANKS 1 4 PHASES ok ok ok ok)
mlckpt_add_mpi_scenario(Faults.RankKilledAfterWritingItsFile RANKS 1 4 8 PHASES killed ok)
mlckpt_add_mpi_scenario(Faults.RankZeroKilledBeforeMetadataCommit RANKS 4 8 PHASES killed ok)
mlckpt_add_mpi_scenario(Faults.RankKilledWhileRepeatingAnId RANKS 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Faults.RankZeroKilledBeforeCommittingARepeatedId RANKS 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Faults.DifferentRankCountIsRefused RANKS 4 PHASES ok 8:ok)
mlckpt_add_mpi_scenario(Faults.FullDiskKeepsThePreviousCheckpoint RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.FullDiskKeepsThePreviousCheckpoint RANKS 1 4 PHASES ok ok FTIFF)
mlckpt_add_mpi_scenario(Faults.FullDiskKeepsThePreviousCheckpointL2 RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Faults.FullDiskKeepsThePreviousCheckpointL3 RANKS 4 PHASES ok ok)

# FTI_BitFlip and FTI_GetConfig ([injection], the configuration as FTI's structure).
mlckpt_add_mpi_scenario(BitFlip.FlipsExactlyTheConfiguredBits RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(BitFlip.DetectedInTheFileNotInMemory RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(BitFlip.DetectedInTheFileNotInMemory RANKS 4 PHASES ok ok FTIFF)
mlckpt_add_mpi_scenario(GetConfig.ReportsTheSession RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(GetConfig.ReportsTheSession RANKS 4 PHASES ok FTIFF)
mlckpt_add_mpi_scenario(GetConfig.ReportsTheSession RANKS 4 PHASES ok IO 4)
mlckpt_add_mpi_scenario(GetConfig.HeadsAndApplicationRanks RANKS 4 PHASES ok HEADS)

mlckpt_add_mpi_scenario(Api.CallsBeforeInit RANKS 1 PHASES ok)
mlckpt_add_mpi_scenario(Api.InvalidArguments RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(Api.VersionQuery RANKS 1 PHASES ok)
mlckpt_add_mpi_scenario(Api.FinalizeFailureReachesEveryRank RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(ConfigErrors.UnknownKey RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(ConfigErrors.OutOfRange RANKS 4 PHASES ok)
mlckpt_add_mpi_scenario(ConfigErrors.NodeSizeMustDivideRanks RANKS 4 PHASES ok)
mlckpt_add_mpi_scenario(ConfigErrors.UnwritableCheckpointDirectory RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(ConfigErrors.ContainerOptions RANKS 4 PHASES ok)
mlckpt_add_mpi_scenario(ConfigErrors.ContainerBlockSizeMustBeAPowerOfTwo RANKS 1 PHASES ok)

# L1 (node loss refused), L2 and L3: node_size 2, group_size 4 (8 ranks = 1
# group ring of 4 nodes per node index; 16 ranks = 2 rings).
foreach(test L1.OneNodeLostIsRefused
             L2.NoLoss L2.OneNodeLost L2.TwoNonAdjacentNodesLost L2.TwoAdjacentNodesLost
             L3.NoLoss L3.OneNodeLost L3.HalfOfTheGroupLost L3.HalfOfTheGroupPlusOneLost
             L2.DamageIsRepaired L3.DamageIsRepaired)
  mlckpt_add_mpi_scenario(${test} RANKS 8 16 PHASES ok ok)
endforeach()
# L3 as Reed-Solomon sets ([basic] l3_failures): k lost nodes of a set of
# four survived, k + 1 refused; the parity's size and its repair.
foreach(test L3Sets.TwoFailuresSurviveTwoLostNodes L3Sets.TwoFailuresSurviveTwoAdjacentLostNodes
             L3Sets.TwoFailuresRefuseThreeLostNodes L3Sets.OneFailureSurvivesOneLostNode
             L3Sets.OneFailureRefusesTwoLostNodes L3Sets.ThreeFailuresSurviveAllButOneNode
             L3Sets.ParityIsAShareOfTheSetAndDamageIsRepaired)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok)
endforeach()
foreach(test L2.DamagedCopyIsRebuiltAfterTheRestart L3.DamagedParityIsRebuiltAfterTheRestart)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok)
endforeach()
foreach(test L2.EveryCopyDamagedIsRebuilt L3.EveryParityDamagedIsRebuilt
             L2.EveryCopyDamagedIsRebuiltWithSingleRead L3.EveryParityDamagedIsRebuiltWithSingleRead)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok HEADS)
endforeach()
foreach(test L2.RedundancyIsRegenerated L3.RedundancyIsRegenerated)
  mlckpt_add_mpi_scenario(${test} RANKS 8 16 PHASES ok ok ok)
endforeach()
foreach(test L2.KilledWhileCopying L3.KilledWhileEncoding)
  mlckpt_add_mpi_scenario(${test} RANKS 8 16 PHASES killed ok ok)
endforeach()
mlckpt_add_mpi_scenario(L3.EmptyFileOnALostNode RANKS 8 PHASES ok ok)
foreach(test L2.DamageFoundWhileReadingIsRepaired L3.DamageFoundWhileReadingIsRepaired)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok FTIFF)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok HEADS)
endforeach()
foreach(test L2.DamagedCopyIsCaughtWhenUsed L3.DamagedParityIsCaughtWhenUsed)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok FTIFF)
endforeach()

# The same matrix with heads doing the work asynchronously: 8 and 16 ranks are
# 4 and 8 nodes of one head and one application rank. A phase that ends in a
# crash is a real kill in head mode.
foreach(test L1.OneNodeLostIsRefused
             L2.NoLoss L2.OneNodeLost L2.TwoNonAdjacentNodesLost L2.TwoAdjacentNodesLost
             L3.NoLoss L3.OneNodeLost L3.HalfOfTheGroupLost L3.HalfOfTheGroupPlusOneLost
             L2.DamageIsRepaired L3.DamageIsRepaired)
  mlckpt_add_mpi_scenario(${test} RANKS 8 16 PHASES killed ok HEADS)
endforeach()
foreach(test L2.RedundancyIsRegenerated L3.RedundancyIsRegenerated)
  mlckpt_add_mpi_scenario(${test} RANKS 8 16 PHASES killed killed ok HEADS)
endforeach()
foreach(test L2.KilledWhileCopying L3.KilledWhileEncoding)
  mlckpt_add_mpi_scenario(${test} RANKS 8 16 PHASES killed killed ok HEADS)
endforeach()

mlckpt_add_mpi_scenario(L4.SurvivesTheLossOfEveryNode RANKS 8 PHASES ok ok)
mlckpt_add_mpi_scenario(L4.SurvivesTheLossOfEveryNode RANKS 8 PHASES killed ok HEADS)
mlckpt_add_mpi_scenario(L2.GroupOfTwo RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(L3.GroupOfSixteenLosesHalf RANKS 16 PHASES ok ok)
mlckpt_add_mpi_scenario(L3.KeptAtFinalizeFromL3 RANKS 8 PHASES ok ok)

# FTI-FF (ckpt_io = 3): its own tests, and the round trips and faults of the
# levels again with FTI-FF files.
mlckpt_add_mpi_scenario(Ftiff.Seed001ThroughTheApi RANKS 1 PHASES ok ok)
mlckpt_add_mpi_scenario(Ftiff.DamagedChunkFallsBackToOlderCheckpoint RANKS 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Ftiff.DamagedChunkOfTheOnlyCheckpointIsNamed RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Ftiff.TruncatedFileIsNamed RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Ftiff.LayoutContinuesAfterRestart RANKS 4 8 PHASES ok ok)
foreach(test Roundtrip.L1 Roundtrip.L4 Resize.GrowAndShrinkWithRealloc Faults.DeletedFileFallsBackToOlderCheckpoint
             Faults.DeletedNodeDirectoryFallsBack Faults.TruncatedFileFallsBack Faults.OverwrittenFileFallsBack)
  mlckpt_add_mpi_scenario(${test} RANKS 4 8 PHASES ok ok FTIFF)
endforeach()
# One global HDF5 file (FTI_L4_H5_SINGLE): restarts on another number of
# ranks (failure = 3), 4 -> 2, 4 -> 8, 8 -> 3 and 1 -> 4.
mlckpt_add_mpi_scenario(GlobalFile.RestartsOnAnotherRankCount RANKS 4 PHASES ok 2:ok IO 5 PREFIX mpi.to2)
mlckpt_add_mpi_scenario(GlobalFile.RestartsOnAnotherRankCount RANKS 4 PHASES ok 8:ok IO 5 PREFIX mpi.to8)
mlckpt_add_mpi_scenario(GlobalFile.RestartsOnAnotherRankCount RANKS 8 PHASES ok 3:ok IO 5 PREFIX mpi.to3)
mlckpt_add_mpi_scenario(GlobalFile.RestartsOnAnotherRankCount RANKS 1 PHASES ok 4:ok IO 5 PREFIX mpi.to4)
mlckpt_add_mpi_scenario(GlobalFile.DamagedFileFallsBackToAnOlderOne RANKS 4 PHASES ok 2:ok 3:ok IO 5)
mlckpt_add_mpi_scenario(GlobalFile.BadDeclarationsWriteNothing RANKS 1 4 PHASES ok IO 5)
mlckpt_add_mpi_scenario(GlobalFile.FailedWriteKeepsThePreviousFile RANKS 4 PHASES ok 3:ok IO 5 PREFIX mpi.lost
                        ENV MLCKPT_FAULT_INJECT=no_space_reservation:0:2,lost_global_write:1:2)
mlckpt_add_mpi_scenario(GlobalFile.FailedWriteKeepsThePreviousFile RANKS 4 PHASES ok 3:ok IO 5 PREFIX mpi.full
                        ENV MLCKPT_FAULT_INJECT=reservation_full:0:2)
mlckpt_add_mpi_scenario(GlobalFile.FailedWriteKeepsThePreviousFile RANKS 4 PHASES killed 3:ok IO 5 PREFIX mpi.killed
                        ENV MLCKPT_FAULT_INJECT=during_global_write:1:2)
mlckpt_add_mpi_scenario(GlobalFile.FailedWriteKeepsThePreviousFile RANKS 4 PHASES ok 3:ok IO 5 PREFIX mpi.realfull)
foreach(test Roundtrip.MixedLevels Resize.ReprotectBetweenCheckpoints RecoverVar.RandomOrder
             Icp.VariablesOneAtATime KeepLast.RestartsFromL4 Named.IdsSurviveRestart L2.GroupOfTwo)
  mlckpt_add_mpi_scenario(${test} RANKS 4 PHASES ok ok FTIFF)
endforeach()
mlckpt_add_mpi_scenario(Faults.RankKilledAfterWritingItsFile RANKS 4 8 PHASES killed ok FTIFF)
foreach(test L2.NoLoss L2.OneNodeLost L2.TwoNonAdjacentNodesLost L3.NoLoss L3.OneNodeLost
             L3.HalfOfTheGroupLost L2.DamageIsRepaired L3.DamageIsRepaired L4.SurvivesTheLossOfEveryNode)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok FTIFF)
endforeach()
foreach(test L2.KilledWhileCopying L3.KilledWhileEncoding)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok ok FTIFF)
endforeach()
foreach(test L2.OneNodeLost L3.OneNodeLost L4.SurvivesTheLossOfEveryNode)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok HEADS FTIFF)
endforeach()

# HDF5 (ckpt_io = 5), one file per rank: its own tests, and the round trips,
# redundancy and faults of the levels again with HDF5 files.
mlckpt_add_mpi_scenario(Hdf5.FileReadsWithoutMlckpt RANKS 4 8 PHASES ok 1:ok IO 5)
mlckpt_add_mpi_scenario(Hdf5.DamagedDatasetFallsBack RANKS 4 8 PHASES ok ok IO 5)
mlckpt_add_mpi_scenario(Hdf5.DamagedRecordFallsBack RANKS 4 PHASES ok ok IO 5)
foreach(test Roundtrip.L1 Roundtrip.L4 Resize.GrowAndShrinkWithRealloc Faults.DeletedFileFallsBackToOlderCheckpoint
             Faults.DeletedNodeDirectoryFallsBack Faults.TruncatedFileFallsBack Faults.OverwrittenFileFallsBack)
  mlckpt_add_mpi_scenario(${test} RANKS 4 8 PHASES ok ok IO 5)
endforeach()
foreach(test Roundtrip.MixedLevels Resize.ReprotectBetweenCheckpoints RecoverVar.RandomOrder
             Icp.VariablesOneAtATime KeepLast.RestartsFromL4 Named.IdsSurviveRestart L2.GroupOfTwo)
  mlckpt_add_mpi_scenario(${test} RANKS 4 PHASES ok ok IO 5)
endforeach()
foreach(level 1 2 3 4)
  mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryL${level} RANKS 4 8 PHASES ok ok IO 5)
endforeach()
mlckpt_add_mpi_scenario(Faults.RankKilledAfterWritingItsFile RANKS 4 8 PHASES killed ok IO 5)
foreach(test L2.NoLoss L2.OneNodeLost L2.TwoNonAdjacentNodesLost L2.TwoAdjacentNodesLost L3.NoLoss
             L3.OneNodeLost L3.HalfOfTheGroupLost L3.HalfOfTheGroupPlusOneLost L2.DamageIsRepaired
             L3.DamageIsRepaired L4.SurvivesTheLossOfEveryNode L2.DamageFoundWhileReadingIsRepaired L3.DamageFoundWhileReadingIsRepaired
             L2.DamagedCopyIsCaughtWhenUsed L3.DamagedParityIsCaughtWhenUsed)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok IO 5)
endforeach()
foreach(test L2.KilledWhileCopying L3.KilledWhileEncoding)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok ok IO 5)
endforeach()
foreach(test L2.OneNodeLost L3.OneNodeLost L4.SurvivesTheLossOfEveryNode)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok HEADS IO 5)
endforeach()

# L4 differential checkpoints.
mlckpt_add_mpi_scenario(Dcp.OnlyChangedBlocksAreWrittenMd5 RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.OnlyChangedBlocksAreWrittenCrc32 RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.CrashDuringUpdateRollsBack RANKS 4 8 PHASES killed ok)
mlckpt_add_mpi_scenario(Dcp.CrashAfterTheJournalIsSealedRollsBack RANKS 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Dcp.CrashWhileTheJournalIsAppliedRollsForward RANKS 1 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Dcp.LostMetadataStillRollsTheJournalForward RANKS 1 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Dcp.CrashBeforeTheCommitRollsBack RANKS 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Dcp.FullL4CheckpointReplacesTheDcpFiles RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.FullDiskKeepsThePreviousCheckpoint RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.GrownVariableHashesItsUnalignedChunk RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.OnlyChangedBlocksAreWrittenWithPosixFiles RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.OnlyChangedBlocksAreWrittenWithMpiioFiles RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.L4DcpWithoutDcpTakesAFullL4 RANKS 1 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Ftiff.RecoversWithoutMetadata RANKS 1 4 8 PHASES ok ok)
mlckpt_add_mpi_scenario(Ftiff.RecoversWithoutMetadataFallingBack RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.VariableNoLongerProtectedIsEmptied RANKS 4 PHASES ok ok)
# L4 differential files under other names than the run's (FTI's): an
# earlier version's (dcp/dCP-Rank<R>.fti), another ckpt_io's.
mlckpt_add_mpi_scenario(Dcp.RestartsFromAnEarlierVersionsFiles RANKS 1 4 PHASES ok ok ok)
mlckpt_add_mpi_scenario(Dcp.RestartsFromFilesOfAnotherCkptIo RANKS 4 PHASES ok ok ok)
mlckpt_add_mpi_scenario(Dcp.AnEarlierVersionsJournalRollsForward RANKS 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Dcp.RestartsFromTheInPlacePosixFilesBeforeLayers RANKS 4 PHASES ok ok ok)
mlckpt_add_mpi_scenario(Dcp.LayersFallBackToTheNewestIntactOnEveryRank RANKS 1 4 PHASES ok ok ok)
mlckpt_add_mpi_scenario(Dcp.LayerStackRollsOver RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(Dcp.LayeredCrashDuringAppendRollsBack RANKS 4 PHASES killed ok)
mlckpt_add_mpi_scenario(Dcp.LayeredCrashBeforeTheCommitRollsBack RANKS 4 PHASES killed ok)
# One unbound rank has every CPU of the machine to itself: its block digests
# are computed by several threads (cpu_share), and must come out the same.
set(unbound_env OMPI_MCA_hwloc_base_binding_policy=none)
foreach(test Dcp.OnlyChangedBlocksAreWrittenMd5 Dcp.OnlyChangedBlocksAreWrittenCrc32)
  mlckpt_add_mpi_scenario(${test} RANKS 1 PHASES ok ok PREFIX mpi.unbound ENV ${unbound_env})
endforeach()
mlckpt_add_mpi_scenario(Dcp.CrashDuringUpdateRollsBack RANKS 1 PHASES killed ok PREFIX mpi.unbound ENV ${unbound_env})
# FTI_Init's word on a rank bound to a single CPU, said and not said.
mlckpt_add_mpi_scenario(Binding.InitSaysWhenARankIsBoundToOneCpu RANKS 1 PHASES ok PREFIX mpi.bound
                        ENV OMPI_MCA_hwloc_base_binding_policy=core MLCKPT_TEST_BINDING=core)
mlckpt_add_mpi_scenario(Binding.InitSaysWhenARankIsBoundToOneCpu RANKS 1 PHASES ok PREFIX mpi.unbound
                        ENV ${unbound_env} MLCKPT_TEST_BINDING=none)

# Shared L4 files: ckpt_io = 2 (MPI-IO) and 4 (the block-aligned container).
foreach(io 2 4)
  mlckpt_add_mpi_scenario(Shared.RoundTrip RANKS 1 4 8 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.IncrementalCheckpoint RANKS 4 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.UnevenPieces RANKS 4 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.RestartWithAnotherIoMode RANKS 4 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.KilledBeforeTheFileIsComplete RANKS 4 8 PHASES killed ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.FullDiskKeepsThePreviousCheckpoint RANKS 4 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.TruncatedFileIsNamed RANKS 1 4 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.CorruptSliceIsNamed RANKS 1 4 8 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(KeepLast.RestartsFromL4 RANKS 1 4 8 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Roundtrip.L4 RANKS 4 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.FallbackToSharedL4 RANKS 4 PHASES ok ok IO ${io})
  mlckpt_add_mpi_scenario(Shared.HeadsFlushIntoTheSharedFile RANKS 8 PHASES killed ok HEADS IO ${io})
  mlckpt_add_mpi_scenario(Resize.ReprotectBetweenCheckpoints RANKS 4 PHASES ok ok IO ${io})
endforeach()
mlckpt_add_mpi_scenario(Shared.MultiFileContainer RANKS 4 8 PHASES ok ok IO 4)
mlckpt_add_mpi_scenario(Shared.CorruptContainerHeaderIsNamed RANKS 4 PHASES ok ok IO 4)

# MPI-IO through ROMIO as well as Open MPI's default OMPIO: the two differ in
# what they report (ROMIO leaves the status of an empty transfer untouched),
# and users switch with OMPI_MCA_io (see docs/performance.md).
execute_process(COMMAND ompi_info OUTPUT_VARIABLE ompi_components ERROR_QUIET)
if(ompi_components MATCHES "MCA io: (romio[0-9]*)")
  set(romio_env OMPI_MCA_io=${CMAKE_MATCH_1})
  mlckpt_add_mpi_scenario(Shared.RoundTrip RANKS 1 4 PHASES ok ok IO 2 PREFIX mpi.romio ENV ${romio_env})
  mlckpt_add_mpi_scenario(Shared.UnevenPieces RANKS 4 PHASES ok ok IO 2 PREFIX mpi.romio ENV ${romio_env})
  mlckpt_add_mpi_scenario(Shared.KilledBeforeTheFileIsComplete RANKS 4 PHASES killed ok IO 2 PREFIX mpi.romio
                          ENV ${romio_env})
  mlckpt_add_mpi_scenario(Shared.TruncatedFileIsNamed RANKS 4 PHASES ok ok IO 2 PREFIX mpi.romio ENV ${romio_env})
  mlckpt_add_mpi_scenario(Shared.FullDiskKeepsThePreviousCheckpoint RANKS 4 PHASES ok ok IO 2 PREFIX mpi.romio
                          ENV ${romio_env})
  mlckpt_add_mpi_scenario(Shared.CorruptSliceIsNamed RANKS 4 PHASES ok ok IO 2 PREFIX mpi.romio ENV ${romio_env})
endif()

# mlckpt verify on what the library wrote, damaged between the launches: the
# second launch is one process that runs the tool (no FTI_Init).
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES ok 1:ok)
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES ok 1:ok FTIFF)
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES ok 1:ok IO 2)
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES ok 1:ok IO 4)
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES ok 1:ok IO 5)
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES killed 1:ok HEADS)
mlckpt_add_mpi_scenario(Verify.L4Differential RANKS 4 PHASES ok 1:ok)

# scr.h: files the application writes itself, under the same levels.
foreach(t RoundTripSingle RoundTripPartner RoundTripXor PartnerSurvivesNodeLoss XorSurvivesHalfASet
          RsSetsSurviveTheirFailures DamagedFilesAreRebuiltPartner DamagedFilesAreRebuiltXor PrefixServesWhenTheCacheIsLost
          BypassWritesToThePrefix)
  mlckpt_add_mpi_scenario(ScrFiles.${t} RANKS 4 8 PHASES ok ok)
endforeach()
mlckpt_add_mpi_scenario(ScrFiles.BypassFollowsTheApplicationsLinks RANKS 4 PHASES ok ok)
mlckpt_add_mpi_scenario(ScrFiles.SingleFallsBackToTheOlderDataset RANKS 4 PHASES ok ok 1:ok)
foreach(t DamagedRedundancyIsRebuiltPartner DamagedRedundancyIsRebuiltXor)
  mlckpt_add_mpi_scenario(ScrFiles.${t} RANKS 4 PHASES ok ok ok)
endforeach()
foreach(t MetadataNamesEveryFile
          CrashDuringOutputKeepsThePreviousDataset InvalidDatasetIsNeverRestarted
          FailedRestartOffersTheOlderDataset)
  mlckpt_add_mpi_scenario(ScrFiles.${t} RANKS 4 PHASES ok ok)
endforeach()
mlckpt_add_mpi_scenario(ScrFiles.ApiFlow RANKS 1 4 PHASES ok)
foreach(t FlushCountsCheckpointIdsAcrossRuns UnknownCurrentRestartsFromTheNewest RemovedScrDirectoryStartsAfresh
          DefaultsBypassTheCache)
  mlckpt_add_mpi_scenario(ScrFiles.${t} RANKS 4 PHASES ok ok)
endforeach()
mlckpt_add_mpi_scenario(ScrFiles.ConfigDescriptorsAndConfFile RANKS 1 4 PHASES ok)
mlckpt_add_mpi_scenario(ScrFiles.FileWrittenAgainByAnotherRankRetiresTheOlderCopy RANKS 4 PHASES ok)
# scr.h datasets on separate nodes: each node's cache its own, a lost
# node's whole disk gone between the launches.
foreach(t RoundTripPartner RoundTripXor PartnerSurvivesNodeLoss XorSurvivesHalfASet RsSetsSurviveTheirFailures)
  mlckpt_add_mpi_scenario(ScrFiles.${t} RANKS 8 PHASES ok ok NODES 4)
endforeach()
foreach(fault after_data_write:1 during_redundancy:2 before_meta_commit:0 during_flush:3)
  string(REGEX REPLACE ":.*" "" point ${fault})
  mlckpt_add_mpi_scenario(ScrFiles.KilledWhileCommittingKeepsThePreviousDataset RANKS 4 PHASES killed ok
                          PREFIX mpi.${point} ENV MLCKPT_FAULT_INJECT=${fault}:2)
endforeach()

# mlckpt index on datasets written through scr.h: listed, verified and
# rebuilt by the tool between the launches (phase 2 is one process), then
# restarted from without a repair.
foreach(t Partner Xor)
  mlckpt_add_mpi_scenario(ScrIndex.${t} RANKS 4 PHASES ok 1:ok ok)
endforeach()

# Levels completed after the commit by each rank's worker thread (head = 0,
# inline_l<L> = 0), with MPI_THREAD_SINGLE (the communication waits for the
# next call) and MPI_THREAD_MULTIPLE (the worker does it all). A phase that
# ends in a crash is a real kill once the last checkpoint is settled.
foreach(multiple "" MULTIPLE)
  foreach(level L2 L3 L4)
    mlckpt_add_mpi_scenario(Background.RoundTrip${level} RANKS 4 8 PHASES killed ok BACKGROUND ${multiple})
  endforeach()
  foreach(io 2 3 4 5)
    mlckpt_add_mpi_scenario(Background.RoundTripL4 RANKS 4 PHASES killed ok BACKGROUND ${multiple} IO ${io})
  endforeach()
  mlckpt_add_mpi_scenario(Background.RoundTripL2 RANKS 4 PHASES killed ok BACKGROUND ${multiple} FTIFF)
  mlckpt_add_mpi_scenario(Background.RoundTripL3 RANKS 4 PHASES killed ok BACKGROUND ${multiple} IO 5)
  foreach(point promotion_started promotion_written)
    mlckpt_add_mpi_scenario(Background.KilledDuringPromotionL4 RANKS 4 PHASES killed ok BACKGROUND ${multiple}
                            PREFIX mpi.${point} ENV MLCKPT_FAULT_INJECT=${point}:1:2)
    mlckpt_add_mpi_scenario(Background.KilledDuringPromotionL2 RANKS 4 PHASES killed ok BACKGROUND ${multiple}
                            PREFIX mpi.${point} ENV MLCKPT_FAULT_INJECT=${point}:3:2)
  endforeach()
  mlckpt_add_mpi_scenario(Background.KilledDuringPromotionL2 RANKS 8 PHASES killed ok BACKGROUND ${multiple}
                          PREFIX mpi.during_redundancy ENV MLCKPT_FAULT_INJECT=during_redundancy:5:2)
  mlckpt_add_mpi_scenario(Background.KilledDuringPromotionThenNodesLostL4 RANKS 4 PHASES killed ok BACKGROUND
                          ${multiple} ENV MLCKPT_FAULT_INJECT=promotion_written:2:2)
  mlckpt_add_mpi_scenario(Background.FullGlobalDirIsReported RANKS 4 PHASES killed killed ok BACKGROUND ${multiple})
  mlckpt_add_mpi_scenario(Background.ManyCheckpointsKeepMemoryFlat RANKS 4 PHASES ok BACKGROUND ${multiple}
                          LABELS footprint)
  mlckpt_add_mpi_scenario(Background.EndWithoutFinalizeKeepsTheCommits RANKS 4 PHASES ok ok BACKGROUND ${multiple})
  mlckpt_add_mpi_scenario(Background.FinalizeWaitsForThePromotion RANKS 4 PHASES ok ok BACKGROUND ${multiple})
  foreach(test L2.KilledWhileCopying L3.KilledWhileEncoding)
    mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed killed ok BACKGROUND ${multiple})
  endforeach()
  mlckpt_add_mpi_scenario(L4.SurvivesTheLossOfEveryNode RANKS 8 PHASES killed ok BACKGROUND ${multiple})
endforeach()

# Checkpoints written from an in-memory snapshot (async_snapshot = 1), with
# both thread levels: the same round trips, kills and full glbl_dir, and a
# kill while the worker writes the snapshot.
foreach(multiple "" MULTIPLE)
  foreach(level L2 L3 L4)
    mlckpt_add_mpi_scenario(Background.RoundTrip${level} RANKS 4 8 PHASES killed ok SNAPSHOT ${multiple})
  endforeach()
  mlckpt_add_mpi_scenario(Background.RoundTripL4 RANKS 4 PHASES killed ok SNAPSHOT ${multiple} FTIFF)
  mlckpt_add_mpi_scenario(Background.RoundTripL4 RANKS 4 PHASES killed ok SNAPSHOT ${multiple} IO 2)
  mlckpt_add_mpi_scenario(Background.RoundTripL3 RANKS 4 PHASES killed ok SNAPSHOT ${multiple} FTIFF)
  mlckpt_add_mpi_scenario(Background.RoundTripL4 RANKS 4 PHASES killed ok SNAPSHOT ${multiple} IO 5)
  foreach(point promotion_started promotion_written)
    mlckpt_add_mpi_scenario(Background.KilledDuringPromotionL4 RANKS 4 PHASES killed ok SNAPSHOT ${multiple}
                            PREFIX mpi.${point} ENV MLCKPT_FAULT_INJECT=${point}:1:2)
  endforeach()
  mlckpt_add_mpi_scenario(Background.KilledWhileWritingTheSnapshot RANKS 4 PHASES killed ok SNAPSHOT ${multiple}
                          ENV MLCKPT_FAULT_INJECT=after_data_write:2:2)
  mlckpt_add_mpi_scenario(Background.FullGlobalDirIsReported RANKS 4 PHASES killed killed ok SNAPSHOT ${multiple})
  mlckpt_add_mpi_scenario(Background.ManyCheckpointsKeepMemoryFlat RANKS 4 PHASES ok SNAPSHOT ${multiple}
                          LABELS footprint)
  mlckpt_add_mpi_scenario(Background.EndWithoutFinalizeKeepsTheCommits RANKS 4 PHASES ok ok SNAPSHOT ${multiple})
  mlckpt_add_mpi_scenario(Background.FinalizeWaitsForThePromotion RANKS 4 PHASES ok ok SNAPSHOT ${multiple})
  mlckpt_add_mpi_scenario(Background.RoundTripL1 RANKS 4 8 PHASES killed ok SNAPSHOT ${multiple})
  mlckpt_add_mpi_scenario(Background.KilledWhileWritingTheSnapshot RANKS 4 PHASES killed ok SNAPSHOT ${multiple}
                          PREFIX mpi.before_meta_commit ENV MLCKPT_FAULT_INJECT=before_meta_commit:0:2)
  mlckpt_add_mpi_scenario(Background.SnapshotOverTheBudgetIsWrittenAtOnce RANKS 4 PHASES ok SNAPSHOT ${multiple})
endforeach()

# Separate nodes (issue 37): the nodes are real enough (own hostname,
# shared-memory domain and local storage), then the same node-loss matrix with local_test = 0 on
# 4 nodes of 2 ranks (heads: a head and an application rank each), each
# node's local storage its own (tests/support/node_agent.sh); a lost node's
# whole disk is removed between the launches.
foreach(test L1.OneNodeLostIsRefused
             L2.NoLoss L2.OneNodeLost L2.TwoNonAdjacentNodesLost L2.TwoAdjacentNodesLost
             L3.NoLoss L3.OneNodeLost L3.HalfOfTheGroupLost L3.HalfOfTheGroupPlusOneLost
             L2.DamageIsRepaired L3.DamageIsRepaired)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok NODES 4)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok NODES 4 HEADS)
endforeach()
# Reed-Solomon sets on separate nodes: k lost nodes recovered, k + 1 refused
# (also with heads, which encode for their node's ranks).
foreach(test L3Sets.TwoFailuresSurviveTwoLostNodes L3Sets.TwoFailuresRefuseThreeLostNodes
             L3Sets.OneFailureRefusesTwoLostNodes)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok NODES 4)
endforeach()
mlckpt_add_mpi_scenario(L3Sets.TwoFailuresSurviveTwoLostNodes RANKS 8 PHASES killed ok NODES 4 HEADS)
# Eight nodes, two groups of four: the losses each group survives, and the
# ones it refuses cleanly.
foreach(test L2.TwoNonAdjacentNodesLost L2.TwoAdjacentNodesLost L3.HalfOfEachGroupLost
             L3.HalfOfTheGroupPlusOneLost)
  mlckpt_add_mpi_scenario(${test} RANKS 16 PHASES ok ok NODES 8)
endforeach()
mlckpt_add_mpi_scenario(SeparateNodes.EachNodeHasItsOwnNameAndStorage RANKS 8 PHASES ok NODES 4)
# A node's disk lost under an L1 checkpoint: the restart falls back to the
# older L4 checkpoint on the shared file system.
mlckpt_add_mpi_scenario(Faults.DeletedNodeDirectoryFallsBack RANKS 8 PHASES ok ok NODES 4)
# What a restart sends each rank of a checkpoint's metadata: its own part
# and its group's, never the whole (per-rank cost flat in the rank count).
foreach(test RankMeta.EachRankReceivesItsOwnRecordsAndItsGroupsOnly
             RankMeta.RedundancyNotRecordedForEveryHolderIsSeenByEveryRank RankMeta.RecordsOutOfPlaceAreCorruptOnEveryRank
             RankMeta.DatasetRanksReceiveEveryFileOfTheirOwnAndNoOther)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok)
endforeach()
mlckpt_add_mpi_scenario(RankMeta.EachRankReceivesItsOwnRecordsAndItsGroupsOnly RANKS 8 PHASES ok NODES 4)
# Every level and every ckpt_io, heads, the background and snapshot modes
# and L4 differential checkpoints on separate nodes.
foreach(io 1 3 5)
  mlckpt_add_mpi_scenario(Roundtrip.MixedLevels RANKS 8 PHASES ok ok IO ${io} NODES 4)
endforeach()
foreach(io 1 2 3 4 5)
  mlckpt_add_mpi_scenario(Roundtrip.L4 RANKS 8 PHASES ok ok IO ${io} NODES 4)
endforeach()
foreach(io 1 2 3 4 5)
  mlckpt_add_mpi_scenario(L4.SurvivesTheLossOfEveryNode RANKS 8 PHASES ok ok IO ${io} NODES 4)
endforeach()
foreach(test L2.OneNodeLost L3.OneNodeLost)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok FTIFF NODES 4)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok IO 5 NODES 4)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok BACKGROUND NODES 4)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok SNAPSHOT NODES 4)
endforeach()
mlckpt_add_mpi_scenario(L4.SurvivesTheLossOfEveryNode RANKS 8 PHASES killed ok HEADS NODES 4)
# Staging from each node's own stage directory, by the rank or its node's head.
mlckpt_add_mpi_scenario(Staging.EveryFileArrivesComplete RANKS 8 PHASES ok NODES 4)
mlckpt_add_mpi_scenario(Staging.EveryFileArrivesComplete RANKS 8 PHASES ok HEADS NODES 4)
mlckpt_add_mpi_scenario(Dcp.OnlyChangedBlocksAreWrittenCrc32 RANKS 8 PHASES ok ok NODES 4)
mlckpt_add_mpi_scenario(Dcp.CrashDuringUpdateRollsBack RANKS 8 PHASES killed ok NODES 4)

# Compressed files ([compression], every level that may): the round trips,
# faults and redundancy of the levels again, with LZ4 and Zstandard, in blocks
# of 1 KiB; the node losses and damage that L2 and L3 repair (the group moves
# the compressed bytes); heads, background promotion, snapshots and separate
# nodes; packed L1 files flushed into the shared L4 files of ckpt_io 2 and 4.
foreach(codec lz4 zstd)
  foreach(level 1 2 3 4)
    mlckpt_add_mpi_scenario(Compression.PackedRoundTripL${level} RANKS 4 PHASES ok ok COMPRESS ${codec})
  endforeach()
  foreach(test Roundtrip.L1 Roundtrip.L4 Roundtrip.MixedLevels Resize.GrowAndShrinkWithRealloc
               RecoverVar.RandomOrder Faults.DeletedFileFallsBackToOlderCheckpoint Faults.DeletedNodeDirectoryFallsBack
               Faults.TruncatedFileFallsBack Faults.OverwrittenFileFallsBack)
    mlckpt_add_mpi_scenario(${test} RANKS 4 PHASES ok ok COMPRESS ${codec})
  endforeach()
  foreach(level 1 2 3 4)
    mlckpt_add_mpi_scenario(FtiSemantics.MixedRecoveryL${level} RANKS 4 PHASES ok ok COMPRESS ${codec})
  endforeach()
endforeach()
mlckpt_add_mpi_scenario(Faults.RankKilledAfterWritingItsFile RANKS 4 PHASES killed ok COMPRESS lz4)
mlckpt_add_mpi_scenario(Icp.VariablesOneAtATime RANKS 4 PHASES ok ok COMPRESS lz4)
foreach(test L2.NoLoss L2.OneNodeLost L2.TwoNonAdjacentNodesLost L2.TwoAdjacentNodesLost L3.NoLoss L3.OneNodeLost
             L3.HalfOfTheGroupLost L3.HalfOfTheGroupPlusOneLost L2.DamageIsRepaired L3.DamageIsRepaired
             L4.SurvivesTheLossOfEveryNode L2.DamageFoundWhileReadingIsRepaired L3.DamageFoundWhileReadingIsRepaired
             L2.DamagedCopyIsCaughtWhenUsed L3.DamagedParityIsCaughtWhenUsed)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok COMPRESS lz4)
endforeach()
foreach(test L2.KilledWhileCopying L3.KilledWhileEncoding)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok ok COMPRESS zstd)
endforeach()
foreach(test L2.OneNodeLost L3.OneNodeLost L4.SurvivesTheLossOfEveryNode)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES killed ok HEADS COMPRESS lz4)
endforeach()
foreach(level L2 L3 L4)
  mlckpt_add_mpi_scenario(Background.RoundTrip${level} RANKS 4 PHASES killed ok BACKGROUND COMPRESS lz4)
  mlckpt_add_mpi_scenario(Background.RoundTrip${level} RANKS 4 PHASES killed ok SNAPSHOT COMPRESS zstd)
endforeach()
foreach(io 2 4)
  mlckpt_add_mpi_scenario(KeepLast.RestartsFromL4 RANKS 4 PHASES ok ok IO ${io} COMPRESS lz4)
  mlckpt_add_mpi_scenario(L4.SurvivesTheLossOfEveryNode RANKS 8 PHASES killed ok HEADS IO ${io} COMPRESS lz4)
endforeach()
foreach(test L2.OneNodeLost L3.OneNodeLost)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok NODES 4 COMPRESS lz4)
endforeach()
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES ok 1:ok COMPRESS lz4)
# HDF5 files (ckpt_io = 5), compressed by HDF5's own filters: readable by
# h5py and h5dump, and the levels' round trips, faults and repairs.
foreach(level 1 2 3 4)
  mlckpt_add_mpi_scenario(Hdf5.CompressedFieldsL${level} RANKS 4 PHASES ok ok IO 5 COMPRESS lz4)
endforeach()
foreach(test Roundtrip.L1 Roundtrip.L4 Roundtrip.MixedLevels Resize.GrowAndShrinkWithRealloc
             Faults.DeletedFileFallsBackToOlderCheckpoint Faults.TruncatedFileFallsBack
             Faults.OverwrittenFileFallsBack FtiSemantics.MixedRecoveryL1 FtiSemantics.MixedRecoveryL4
             KeepLast.RestartsFromL4)
  mlckpt_add_mpi_scenario(${test} RANKS 4 PHASES ok ok IO 5 COMPRESS zstd)
endforeach()
foreach(test L2.OneNodeLost L3.OneNodeLost L2.DamageIsRepaired L3.DamageIsRepaired
             L2.DamageFoundWhileReadingIsRepaired L3.DamageFoundWhileReadingIsRepaired)
  mlckpt_add_mpi_scenario(${test} RANKS 8 PHASES ok ok IO 5 COMPRESS lz4)
endforeach()
mlckpt_add_mpi_scenario(L4.SurvivesTheLossOfEveryNode RANKS 8 PHASES killed ok HEADS IO 5 COMPRESS lz4)
mlckpt_add_mpi_scenario(Background.RoundTripL4 RANKS 4 PHASES killed ok BACKGROUND IO 5 COMPRESS lz4)
mlckpt_add_mpi_scenario(Verify.EveryLevel RANKS 8 PHASES ok 1:ok IO 5 COMPRESS lz4)
# L1 uncompressed, L4 compressed: the heads or the worker pack the L4 copy.
mlckpt_add_mpi_scenario(Compression.PromotedL4IsPackedAfterTheCommit RANKS 4 PHASES killed ok HEADS)
mlckpt_add_mpi_scenario(Compression.PromotedL4IsPackedAfterTheCommit RANKS 4 PHASES killed ok BACKGROUND)
mlckpt_add_mpi_scenario(Compression.PromotedL4IsPackedAfterTheCommit RANKS 4 PHASES killed ok SNAPSHOT)
mlckpt_add_mpi_scenario(Compression.KeptCheckpointIsPackedWhenFlushed RANKS 1 4 PHASES ok ok)
# FTI_SetErrorBound: lossy within the bound where the level compresses.
foreach(level L1 L4)
  mlckpt_add_mpi_scenario(Compression.ErrorBoundedVariables${level} RANKS 1 4 PHASES ok ok COMPRESS zstd)
endforeach()
