// Test code sees the simulation and the transcripts through MRTDTesting, as it did when they lived here.
@_exported import MRTDSimulation
@_exported import MRTDTranscript
