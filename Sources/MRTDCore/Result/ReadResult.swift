/// The one result model that the daemon, `mrtdctl --json`, replay and offline verification emit.
///
/// It is a contract other services script against: fields are added, never renamed. Optional
/// fields are omitted from JSON when absent.
public struct ReadResult: Sendable, Equatable, Codable {
    /// `valid` only when passive authentication passed; `invalid` when it failed; `unverified` when
    /// it was not performed; `failed` when the read itself failed (see `error`).
    public enum Status: String, Sendable, Codable {
        case valid, invalid, unverified, failed
    }

    public var status: Status
    /// What `status` covers, in words (MRTDVerification's `VerdictPolicy`): the checks that decided
    /// it, and for `valid` what is worth knowing beside it (`authentic chip; document expired`,
    /// `opened with BAC after PACE failed`). Never personal data. Absent in results before it existed.
    public var statusDetail: String?
    public var error: ErrorInfo?
    public var access: AccessInfo?
    public var applications: ApplicationsInfo?
    public var document: DocumentInfo?
    public var face: FaceInfo?
    public var checks: Checks
    public var dataGroupsRead: [String]
    public var dataGroupsSkipped: [SkippedFile]
    public var warnings: [String]
    public var transport: TransportReport
    public var durationMs: Double
    /// DG11 (see ReadResult+LDS.swift for these fields; all absent unless the group was read).
    public var personalDetails: PersonalDetailsInfo?
    /// DG12.
    public var documentDetails: DocumentDetailsInfo?
    /// DG16.
    public var personsToNotify: [PersonToNotifyInfo]?
    /// DG3 and DG4 record images.
    public var biometrics: [BiometricInfo]?
    /// DG13 (opaque).
    public var optionalDetails: OpaqueGroupInfo?
    /// Images besides the face (DG5, DG7, DG11, DG12, DG3, DG4), served by name.
    public var images: [ImageInfo]?
    /// EF.ATR/INFO as the reader found it (Doc 9303-10 §3.11), and whether its APDU sizes were used;
    /// absent in results of reads before it was looked at.
    public var atrInfo: ATRInfoReport?

    public init(
        status: Status, error: ErrorInfo? = nil, access: AccessInfo? = nil,
        applications: ApplicationsInfo? = nil, document: DocumentInfo? = nil, face: FaceInfo? = nil,
        checks: Checks = Checks(), dataGroupsRead: [String] = [], dataGroupsSkipped: [SkippedFile] = [],
        warnings: [String] = [], transport: TransportReport = TransportReport(), durationMs: Double = 0
    ) {
        self.status = status
        self.error = error
        self.access = access
        self.applications = applications
        self.document = document
        self.face = face
        self.checks = checks
        self.dataGroupsRead = dataGroupsRead
        self.dataGroupsSkipped = dataGroupsSkipped
        self.warnings = warnings
        self.transport = transport
        self.durationMs = durationMs
    }

    /// A stable error code and a readable message. Messages never carry personal data.
    public struct ErrorInfo: Sendable, Equatable, Codable {
        /// A registry code (its raw value in the JSON).
        public var code: ErrorCode
        public var message: String
        public init(code: ErrorCode, message: String) {
            self.code = code
            self.message = message
        }

        private enum CodingKeys: String, CodingKey { case code, message }

        /// A code this build does not know (a newer daemon's) is read as `readFailed`, the message kept.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            code = ErrorCode(decoding: try container.decode(String.self, forKey: .code))
            message = try container.decode(String.self, forKey: .message)
        }
    }

    /// How the chip was opened.
    public struct AccessInfo: Sendable, Equatable, Codable {
        /// `BAC` or `PACE`.
        public var `protocol`: String
        /// `MRZ` or `CAN`.
        public var password: String
        /// Secure messaging cipher: `3DES`, `AES-128`, `AES-192`, `AES-256`.
        public var cipher: String
        /// PACE mapping: `GM`, `IM` or `CAM` (absent for BAC).
        public var mapping: String?
        /// PACE key agreement: `ECDH` or `DH`.
        public var keyAgreement: String?
        /// PACE domain parameters: `brainpoolP256r1`, `NIST-P-256`, `RFC5114-2048-256`, or `explicit`.
        public var domainParameters: String?
        /// The PACE parameter ID (standardized 0-18, or the chip's own ID for explicit parameters).
        public var parameterId: Int?
        /// Set when the protocol that ran is not the one tried first (PACE failed, BAC was used).
        public var fallback: Fallback?

        public init(
            protocol: String, password: String, cipher: String, mapping: String? = nil,
            keyAgreement: String? = nil, domainParameters: String? = nil, parameterId: Int? = nil,
            fallback: Fallback? = nil
        ) {
            self.protocol = `protocol`
            self.password = password
            self.cipher = cipher
            self.mapping = mapping
            self.keyAgreement = keyAgreement
            self.domainParameters = domainParameters
            self.parameterId = parameterId
            self.fallback = fallback
        }

        /// A change of access protocol during the read and why.
        public struct Fallback: Sendable, Equatable, Codable {
            /// The protocol that failed (`PACE`).
            public var from: String
            /// The protocol used instead (`BAC`).
            public var to: String
            /// The failure's error code and description (no personal data).
            public var reason: String
            public init(from: String, to: String, reason: String) {
                self.from = from
                self.to = to
                self.reason = reason
            }
        }
    }

    /// Which applications the chip answered to.
    public struct ApplicationsInfo: Sendable, Equatable, Codable {
        /// The LDS1 eMRTD application `A0000002471001`.
        public var lds1: Bool
        /// The LDS2 application `A0000002472001` (probed, reported, not read).
        public var lds2: Bool
        public init(lds1: Bool, lds2: Bool) {
            self.lds1 = lds1
            self.lds2 = lds2
        }
    }

    /// The holder and document fields of DG1's MRZ.
    public struct DocumentInfo: Sendable, Equatable, Codable {
        public var mrzFormat: String
        public var documentCode: String
        public var issuingState: String
        public var documentNumber: String
        public var primaryIdentifier: String
        public var secondaryIdentifier: String
        public var nationality: String
        /// ISO 8601 (`1974-08-12`), or `nil` when the MRZ date is incomplete.
        public var dateOfBirth: String?
        /// As printed: `YYMMDD`.
        public var dateOfBirthRaw: String
        public var sex: String
        public var dateOfExpiry: String?
        public var dateOfExpiryRaw: String
        public var optionalData: String
        public var optionalData2: String?
        /// The MRZ lines joined with `\n`.
        public var mrz: String
        /// Whether every MRZ check digit in DG1 is correct.
        public var checkDigitsValid: Bool
        /// The fields whose check digit is wrong (empty when all are correct).
        public var invalidCheckDigits: [String]

        public init(mrz: MRZ) {
            mrzFormat = mrz.format.rawValue
            documentCode = mrz.documentCode
            issuingState = mrz.issuingState
            documentNumber = mrz.documentNumber
            primaryIdentifier = mrz.primaryIdentifier
            secondaryIdentifier = mrz.secondaryIdentifier
            nationality = mrz.nationality
            dateOfBirth = mrz.dateOfBirth.iso8601
            dateOfBirthRaw = mrz.dateOfBirth.raw
            sex = mrz.sex
            dateOfExpiry = mrz.dateOfExpiry.iso8601
            dateOfExpiryRaw = mrz.dateOfExpiry.raw
            optionalData = mrz.optionalData
            optionalData2 = mrz.optionalData2
            self.mrz = mrz.lines.joined(separator: "\n")
            checkDigitsValid = mrz.hasValidCheckDigits
            invalidCheckDigits = mrz.checkDigits.filter { !$0.isValid }.map(\.field)
        }
    }

    /// The first face image of DG2 (the bytes themselves travel separately).
    public struct FaceInfo: Sendable, Equatable, Codable {
        public var mimeType: String
        public var width: Int?
        public var height: Int?
        /// Image size in bytes.
        public var size: Int
        /// `ISO/IEC 19794-5` or `ISO/IEC 39794-5`.
        public var encoding: String?

        public init(mimeType: String, width: Int?, height: Int?, size: Int, encoding: String?) {
            self.mimeType = mimeType
            self.width = width
            self.height = height
            self.size = size
            self.encoding = encoding
        }
    }

    /// One authentication check and its verdict.
    public struct Check: Sendable, Equatable, Codable {
        /// `passed`, `failed`, `notPerformed`; chip and active authentication also
        /// `passed-unverified-key` (the chip proved it holds the key, but the file the key came from
        /// is not yet covered by a passing passive authentication; see ``AuthenticationVerdict``);
        /// the TR-03135 checks also `undetermined` (the check ran but could not decide, e.g. no
        /// usable CRL for revocation, or a country code with no ISO 3166 counterpart).
        public var result: CheckResult
        /// A stable code or a short readable reason.
        public var reason: String?
        /// The protocol that ran (`id-CA-ECDH-AES-CBC-CMAC-128`, `id-AA`).
        public var `protocol`: String?
        /// Chip Authentication: the key agreement and its curve or group (`ECDH brainpoolP256r1`).
        public var keyAgreement: String?
        /// Active Authentication: the signature scheme and hash (`RSA-ISO9796-2 SHA-1`, `ECDSA SHA-256 plain`).
        public var algorithm: String?
        /// The file the key came from (`DG14`, `EF_CardSecurity`, `DG15`): what passive authentication
        /// must cover before the check can pass.
        public var keyFile: String?
        /// A readable explanation of `result` and `reason` (never personal data).
        public var detail: String?
        /// Active Authentication: the 8-byte challenge (RND.IFD) the chip was asked to sign, in hex.
        public var challenge: String?
        /// Active Authentication: who chose `challenge`: `caller` (the API or `--aa-challenge`: a
        /// fresh nonce of the relying party) or `reader` (drawn by this reader).
        public var challengeSource: String?
        /// Active Authentication: the chip's answer to INTERNAL AUTHENTICATE (the signature), in hex.
        public var signature: String?
        public init(result: CheckResult, reason: String? = nil, protocol: String? = nil, keyAgreement: String? = nil,
                    algorithm: String? = nil, keyFile: String? = nil, detail: String? = nil) {
            self.result = result
            self.reason = reason
            self.protocol = `protocol`
            self.keyAgreement = keyAgreement
            self.algorithm = algorithm
            self.keyFile = keyFile
            self.detail = detail
        }
        public static func notPerformed(_ reason: String) -> Check {
            Check(result: .notPerformed, reason: reason)
        }
    }

    public struct Checks: Sendable, Equatable, Codable {
        public var passiveAuthentication: PassiveAuthenticationCheck
        public var chipAuthentication: Check
        public var activeAuthentication: Check
        // The BSI TR-03135 inspection checks (docs/verification.md). Absent in results written
        // before they existed; always present in a result of a completed read or `verify`.
        /// The DSC's and CSCA's country against DG1's issuing state.
        public var issuingCountry: Check?
        /// The document's own date of expiry (DG1) against the verification date.
        public var documentExpiry: Check?
        /// DG1's MRZ against the MRZ key that opened the chip (BAC, or PACE with an MRZ password).
        public var accessKeyMatch: Check?
        /// Structural validity of DG1 (MRZ layout) and DG2 (biometric template) as read.
        public var dataGroupStructure: Check?
        /// Revocation of the document signer: `undetermined` when no usable CRL was loaded.
        public var revocation: Check?
        /// Deviations from signed deviation lists (Doc 9303-12 §10) that match this document.
        public var deviations: [DeviationMatch]?
        /// EAC Terminal Authentication; absent when no terminal credentials were configured.
        public var terminalAuthentication: TerminalAuthenticationCheck?
        /// DG1 as read from the chip against the MRZ a scanner read (TR-03135): `passed` or `failed`;
        /// present only on reads started from a scanned or pushed MRZ (docs/kiosk.md).
        public var mrzMatch: Check?
        /// EF.ATR/INFO's structure (Doc 9303-10 §3.11, ISO/IEC 7816-4 §12.7.1): `passed` when it was
        /// read and parses, `failed` (`extendedLengthInfoMalformed`, `atrInfoUnknownObject`,
        /// `atrInfoMalformed`) when it does not; absent when the chip has none or it was not readable.
        public var atrInfo: Check?
        public init(
            passiveAuthentication: PassiveAuthenticationCheck = .notPerformed("notImplemented"),
            chipAuthentication: Check = .notPerformed("notImplemented"),
            activeAuthentication: Check = .notPerformed("notImplemented"),
            issuingCountry: Check? = nil, documentExpiry: Check? = nil, accessKeyMatch: Check? = nil,
            dataGroupStructure: Check? = nil, revocation: Check? = nil, deviations: [DeviationMatch]? = nil,
            terminalAuthentication: TerminalAuthenticationCheck? = nil, mrzMatch: Check? = nil
        ) {
            self.passiveAuthentication = passiveAuthentication
            self.chipAuthentication = chipAuthentication
            self.activeAuthentication = activeAuthentication
            self.issuingCountry = issuingCountry
            self.documentExpiry = documentExpiry
            self.accessKeyMatch = accessKeyMatch
            self.dataGroupStructure = dataGroupStructure
            self.revocation = revocation
            self.deviations = deviations
            self.terminalAuthentication = terminalAuthentication
            self.mrzMatch = mrzMatch
        }
    }

    /// A file that was asked for and not read, with the reason (`securityStatusNotSatisfied`, …).
    public struct SkippedFile: Sendable, Equatable, Codable {
        public var file: String
        /// `securityStatusNotSatisfied`, `accessDenied SW`, `fileNotFound`, or ``fileEmpty``.
        public var reason: String
        /// The chip holds the file with nothing in it: its first READ BINARY ended the file.
        public static let fileEmpty = "fileEmpty"
        public init(file: String, reason: String) {
            self.file = file
            self.reason = reason
        }
    }
}

/// What a read cost on the wire.
public struct TransportReport: Sendable, Equatable, Codable {
    /// Command/response exchanges, all included (SELECTs, authentication, reads, retries).
    public var apdus: Int
    public var bytesSent: Int
    public var bytesReceived: Int
    /// Whether extended-length READ BINARY was used.
    public var extendedLength: Bool
    /// The largest number of file bytes one READ BINARY returned.
    public var maxReadLength: Int
    /// READ BINARY commands sent (a subset of `apdus`).
    public var readBinaryCommands: Int
    /// Bytes of file content read (the total of the files).
    public var fileBytes: Int
    /// Recoveries from length errors and the like, in order (`6700 at Le=256: lowered to 223`).
    public var adjustments: [String]
    /// Every fault the reader recovered from (or tried to), in order: a lost card, a secure-messaging
    /// error, a length error. Empty when nothing went wrong (docs/reliability.md lists the kinds).
    public var recoveries: [Recovery]

    /// One recovery: what happened, where, and what was done about it.
    public struct Recovery: Sendable, Equatable, Codable {
        /// A stable code (`cardRemoved`, `chipTimeout`, `secureMessagingMACInvalid`, `wrongLength`, ...).
        public var kind: String
        /// The file being read when it happened (`DG2`), if any.
        public var file: String?
        /// How many bytes of `file` had been read (and verified by secure messaging) when it happened;
        /// the read resumed from there.
        public var offset: Int?
        /// The zero-based index of the exchange that failed, counted over the whole read.
        public var exchange: Int
        /// What was done, in words (no personal data).
        public var detail: String

        public init(kind: String, file: String? = nil, offset: Int? = nil, exchange: Int, detail: String) {
            self.kind = kind
            self.file = file
            self.offset = offset
            self.exchange = exchange
            self.detail = detail
        }
    }

    public init(
        apdus: Int = 0, bytesSent: Int = 0, bytesReceived: Int = 0, extendedLength: Bool = false,
        maxReadLength: Int = 0, readBinaryCommands: Int = 0, fileBytes: Int = 0, adjustments: [String] = [],
        recoveries: [Recovery] = []
    ) {
        self.recoveries = recoveries
        self.apdus = apdus
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.extendedLength = extendedLength
        self.maxReadLength = maxReadLength
        self.readBinaryCommands = readBinaryCommands
        self.fileBytes = fileBytes
        self.adjustments = adjustments
    }
}

extension TransportReport {
    private enum CodingKeys: String, CodingKey {
        case apdus, bytesSent, bytesReceived, extendedLength, maxReadLength, readBinaryCommands, fileBytes
        case adjustments, recoveries
    }

    /// Decodes results written before `recoveries` existed (it is then empty).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            apdus: try c.decode(Int.self, forKey: .apdus), bytesSent: try c.decode(Int.self, forKey: .bytesSent),
            bytesReceived: try c.decode(Int.self, forKey: .bytesReceived),
            extendedLength: try c.decode(Bool.self, forKey: .extendedLength),
            maxReadLength: try c.decode(Int.self, forKey: .maxReadLength),
            readBinaryCommands: try c.decode(Int.self, forKey: .readBinaryCommands),
            fileBytes: try c.decode(Int.self, forKey: .fileBytes),
            adjustments: try c.decode([String].self, forKey: .adjustments),
            recoveries: try c.decodeIfPresent([Recovery].self, forKey: .recoveries) ?? [])
    }
}
