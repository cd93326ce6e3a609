public import MRTDCore
import MRTDCrypto
public import MRTDVerification
import FoundationEssentials

/// What to read and how.
public struct ReadOptions: Sendable, Equatable {
    public var accessKey: AccessKey
    /// How to choose between PACE and BAC.
    public var access: AccessPolicy
    /// Data groups to read besides EF.COM and EF.SOD, when EF.COM lists them. DG1 and DG2 are always
    /// read; the default adds DG14 and DG15 (chip and active authentication keys).
    public var dataGroups: [Int]
    /// Probe the LDS2 application (`A0000002472001`) before selecting LDS1; reported, not read.
    public var probeLDS2: Bool
    public var reader: FileReader.Configuration
    /// The CSCAs to verify the document against (passive authentication); `nil` leaves it
    /// `notPerformed` and the status `unverified`.
    public var trustStore: TrustStore?
    /// Recovery from lost cards and secure-messaging faults (bounded attempts, a deadline).
    public var recovery: RecoveryPolicy
    /// EAC terminal credentials: with them, Terminal Authentication runs after Chip Authentication
    /// when DG3 or DG4 is asked for (BSI TR-03110-1 §4.4); without, those groups stay skipped.
    public var terminal: TerminalCredentials? = nil
    /// The date certificate validity is judged at before the chain is presented (default: today, UTC);
    /// the chip judges again at its own current date.
    public var terminalDate: CVDate? = nil
    /// The 8-byte Active Authentication challenge (RND.IFD) a caller chose (a relying party's fresh
    /// nonce, docs/evidence.md); nil: the reader draws its own from its random source.
    public var activeAuthenticationChallenge: [UInt8]? = nil
    /// The MRZ of the document's data page, as a scanner read it or an operator typed it as printed:
    /// DG1 must equal it (`checks.mrzMatch`; a difference makes the read `invalid`, BSI TR-03105-5.1
    /// LDS_B_11). nil: only the access key is compared with DG1 (`checks.accessKeyMatch`).
    public var pageMRZ: MRZ? = nil

    public init(
        accessKey: AccessKey, dataGroups: [Int] = [1, 2, 14, 15], probeLDS2: Bool = true,
        reader: FileReader.Configuration = .init(), access: AccessPolicy = .auto, trustStore: TrustStore? = nil,
        recovery: RecoveryPolicy = .init()
    ) {
        self.recovery = recovery
        self.accessKey = accessKey
        self.access = access
        self.dataGroups = dataGroups
        self.probeLDS2 = probeLDS2
        self.reader = reader
        self.trustStore = trustStore
    }
}
