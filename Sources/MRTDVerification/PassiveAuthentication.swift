import MRTDCore
import MRTDCrypto

/// Passive authentication (Doc 9303-11 §5.1, Doc 9303-12): SOD signature, DSC to CSCA chain and data
/// group hashes. Runs offline on raw file bytes; never depends on the protocol layer.
public enum PassiveAuthentication {}
