public import FoundationEssentials
public import MRTDCore
import MRTDCrypto

/// `mrtd-evidence/1` (docs/evidence.md): what a third party needs to re-verify a read without the
/// chip. EF.SOD and the data groups as read (base64), or for a withheld group only the hash the SOD
/// signs; the Active Authentication challenge and the chip's signature over it; the reader's
/// verdict, the trust anchor it rested on (by fingerprint) and the software that made the bundle.
/// Never an access key or a session key: a read keeps neither, and the bundle has no field for one.
///
/// JSON like the rest of the API; ``decode(_:)`` is strict and bounded (the fuzzers run it).
public struct EvidenceBundle: Sendable, Equatable, Codable {
    /// The format and its version; a verifier refuses any other.
    public static let formatName = "mrtd-evidence/1"
    /// The largest bundle ``decode(_:)`` accepts (bytes of JSON).
    public static let maxSize = 24 << 20
    /// The largest file a bundle may carry (decoded bytes), twice the reader's default file limit.
    public static let maxFileSize = 2 << 20

    public var format: String
    /// When the bundle was made (ISO 8601 UTC).
    public var createdAt: String
    /// The software that read the chip and made the bundle.
    public var software: Software
    /// File name (`EF_SOD`, `EF_COM`, `DG1`, …, `EF_CardSecurity`) to its bytes as read, base64.
    public var files: [String: String]
    /// Data groups the SOD signs that were read but are not disclosed: name to the hash the SOD holds.
    public var withheld: [String: WithheldGroup]?
    /// The Active Authentication the chip performed (absent when it did not run).
    public var activeAuthentication: ActiveAuthenticationEvidence?
    /// What Chip Authentication or PACE-CAM proved to the reader (informational: a CA or CAM
    /// transcript proves nothing to a third party, it can be replayed; the key is in `keyFile`).
    public var chipAuthentication: ReadResult.Check?
    /// The trust anchors the reader's passive authentication rested on.
    public var trustAnchors: [TrustAnchor]
    /// The reader's own verdict (informational: a verifier decides afresh from the bytes).
    public var verdict: Verdict

    public struct Software: Sendable, Equatable, Codable {
        public var name: String
        public var version: String
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    public struct WithheldGroup: Sendable, Equatable, Codable {
        /// `SHA-256`, … (the LDSSecurityObject's hash algorithm).
        public var hashAlgorithm: String
        /// Hex.
        public var hash: String
        public init(hashAlgorithm: String, hash: String) {
            self.hashAlgorithm = hashAlgorithm
            self.hash = hash
        }
    }

    public struct ActiveAuthenticationEvidence: Sendable, Equatable, Codable {
        /// RND.IFD, 8 bytes, hex.
        public var challenge: String
        /// `caller` (a relying party's fresh nonce) or `reader`.
        public var challengeSource: String?
        /// The chip's answer to INTERNAL AUTHENTICATE, hex.
        public var signature: String
        /// As the reader reported it (`ECDSA SHA-256 plain`, `RSA-ISO9796-2 SHA-1`).
        public var algorithm: String?
        public init(challenge: String, challengeSource: String?, signature: String, algorithm: String?) {
            self.challenge = challenge
            self.challengeSource = challengeSource
            self.signature = signature
            self.algorithm = algorithm
        }

        /// The chip's answer as a read's Active Authentication check recorded it; nil when the check
        /// holds no challenge and signature (AA did not run, or the chip refused it).
        public init?(check: ReadResult.Check) {
            guard let challenge = check.challenge, let signature = check.signature else { return nil }
            self.init(challenge: challenge, challengeSource: check.challengeSource, signature: signature, algorithm: check.algorithm)
        }
    }

    public struct TrustAnchor: Sendable, Equatable, Codable {
        /// `csca` (the anchor) or `dsc` (the document signer it certified).
        public var role: String
        public var subject: String
        /// SHA-256 of the certificate's DER, hex.
        public var sha256: String
        public init(role: String, subject: String, sha256: String) {
            self.role = role
            self.subject = subject
            self.sha256 = sha256
        }
    }

    public struct Verdict: Sendable, Equatable, Codable {
        public var status: ReadResult.Status
        public var checks: ReadResult.Checks
        public init(status: ReadResult.Status, checks: ReadResult.Checks) {
            self.status = status
            self.checks = checks
        }
    }

    public init(
        createdAt: String, software: Software, files: [String: String], withheld: [String: WithheldGroup]?,
        activeAuthentication: ActiveAuthenticationEvidence?, chipAuthentication: ReadResult.Check?,
        trustAnchors: [TrustAnchor], verdict: Verdict
    ) {
        format = Self.formatName
        self.createdAt = createdAt
        self.software = software
        self.files = files
        self.withheld = withheld
        self.activeAuthentication = activeAuthentication
        self.chipAuthentication = chipAuthentication
        self.trustAnchors = trustAnchors
        self.verdict = verdict
    }

    static let fields: Set<String> = [
        "format", "createdAt", "software", "files", "withheld", "activeAuthentication", "chipAuthentication",
        "trustAnchors", "verdict",
    ]
}

/// Why a bundle was refused or could not be made. Descriptions name fields, never their contents.
public enum EvidenceError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// Not a bundle: not JSON, a field missing or of the wrong type, bad base64 or hex, too large.
    case malformed(String)
    /// `format` is not `mrtd-evidence/1`.
    case unsupportedFormat(String)
    /// `disclose` names something that is not a data group number 1-16.
    case invalidDisclosure(String)
    /// The read has no evidence (it failed, or kept no EF.SOD).
    case notAvailable

    public var errorCode: ErrorCode {
        switch self {
        case .malformed: .evidenceMalformed
        case .unsupportedFormat: .evidenceFormatUnsupported
        case .invalidDisclosure: .invalidDisclosure
        case .notAvailable: .evidenceNotAvailable
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): "evidence bundle: \(why)"
        case .unsupportedFormat(let format):
            "evidence bundle format '\(format.prefix(40))' is not supported (expected \(EvidenceBundle.formatName))"
        case .invalidDisclosure(let why): "disclose: \(why)"
        case .notAvailable: "the read has no evidence (it failed, or its files are no longer held)"
        }
    }
}

// MARK: Decoding and encoding

extension EvidenceBundle {
    /// Parses and checks a bundle: at most ``maxSize`` bytes, known top-level fields only, the
    /// format, file names, base64 and hex well-formed, EF.SOD present, the challenge 8 bytes, no
    /// group both disclosed and withheld. The contents are not trusted: ``EvidenceVerification`` decides.
    public static func decode(_ bytes: [UInt8]) throws(EvidenceError) -> EvidenceBundle {
        guard bytes.count <= maxSize else { throw .malformed("larger than \(maxSize) bytes") }
        let data = Data(bytes)
        let keys: [String]
        do {
            keys = try JSONDecoder().decode(TopLevelKeys.self, from: data).keys
        } catch {
            throw .malformed("not a JSON object")
        }
        if let unknown = keys.sorted().first(where: { !fields.contains($0) }) {
            throw .malformed("unknown field '\(unknown.prefix(40))'")
        }
        let bundle: EvidenceBundle
        do {
            bundle = try JSONDecoder().decode(EvidenceBundle.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .malformed("missing field '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .malformed("wrong type for '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch {
            throw .malformed("cannot decode")
        }
        guard bundle.format == formatName else { throw .unsupportedFormat(bundle.format) }
        _ = try bundle.fileBytes()
        _ = try bundle.withheldHashes()
        if let aa = bundle.activeAuthentication {
            guard let challenge = [UInt8](hex: aa.challenge), challenge.count == 8 else {
                throw .malformed("activeAuthentication.challenge must be 16 hex digits")
            }
            guard let signature = [UInt8](hex: aa.signature), !signature.isEmpty, signature.count <= 1024 else {
                throw .malformed("activeAuthentication.signature must be hex of 1 to 1024 bytes")
            }
        }
        guard bundle.trustAnchors.count <= 16 else { throw .malformed("more than 16 trustAnchors") }
        // Enumerated fields take their known values only: nothing else from a bundle is shown as if
        // it were one (a verifier prints them).
        if let source = bundle.activeAuthentication?.challengeSource, !["caller", "reader"].contains(source) {
            throw .malformed("activeAuthentication.challengeSource must be caller or reader")
        }
        for anchor in bundle.trustAnchors {
            guard ["csca", "dsc"].contains(anchor.role) else { throw .malformed("trustAnchors[].role must be csca or dsc") }
            guard anchor.sha256.count == 64, [UInt8](hex: anchor.sha256) != nil else {
                throw .malformed("trustAnchors[].sha256 must be 64 hex digits")
            }
        }
        for group in (bundle.withheld ?? [:]).values where DigestAlgorithm(rawValue: group.hashAlgorithm) == nil {
            throw .malformed("withheld[].hashAlgorithm must be a hash algorithm name (SHA-256, ...)")
        }
        return bundle
    }

    /// The bundle as JSON: sorted keys, so the same bundle is the same bytes.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self))
    }

    /// The carried files, decoded and checked (names, base64, sizes, EF.SOD present).
    public func fileBytes() throws(EvidenceError) -> [LDSFile: [UInt8]] {
        guard files.count <= 20 else { throw .malformed("more than 20 files") }
        var decoded: [LDSFile: [UInt8]] = [:]
        for (name, text) in files {
            guard let file = LDSFile(name: name), Self.carriable(file) else {
                throw .malformed("'\(name.prefix(40))' is not a file a bundle carries")
            }
            guard text.utf8.count <= (Self.maxFileSize / 3 + 1) * 4, let data = Data(base64Encoded: text) else {
                throw .malformed("files.\(name) is not base64 of at most \(Self.maxFileSize) bytes")
            }
            decoded[file] = Array(data)
        }
        guard decoded[.sod] != nil else { throw .malformed("files.EF_SOD is missing") }
        return decoded
    }

    /// The withheld groups' stated hashes, checked (data group names, algorithm, hex of its length).
    func withheldHashes() throws(EvidenceError) -> [Int: (DigestAlgorithm, [UInt8])] {
        var hashes: [Int: (DigestAlgorithm, [UInt8])] = [:]
        for (name, group) in withheld ?? [:] {
            guard let number = LDSFile(name: name)?.dataGroupNumber else {
                throw .malformed("withheld '\(name.prefix(40))' is not a data group")
            }
            guard files[name] == nil else { throw .malformed("\(name) is both disclosed and withheld") }
            guard let digest = DigestAlgorithm(rawValue: group.hashAlgorithm) else {
                throw .malformed("withheld.\(name).hashAlgorithm is not a known hash")
            }
            guard let hash = [UInt8](hex: group.hash), hash.count == digest.outputLength else {
                throw .malformed("withheld.\(name).hash is not a \(digest.rawValue) hash in hex")
            }
            hashes[number] = (digest, hash)
        }
        return hashes
    }

    static func carriable(_ file: LDSFile) -> Bool {
        switch file {
        case .sod, .com, .cardSecurity, .dg: true
        default: false
        }
    }
}

/// The member names of a JSON object, whatever their values.
private struct TopLevelKeys: Decodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var keys: [String]

    init(from decoder: any Decoder) throws {
        keys = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue)
    }
}

// MARK: Making a bundle

extension EvidenceBundle {
    /// Makes the bundle of a finished read.
    ///
    /// - Parameters:
    ///   - files: the files as read (EF.SOD required).
    ///   - result: the read's result (its verdict and the AA challenge and signature).
    ///   - disclose: the data groups to carry in full; nil: all read. The others read are withheld:
    ///     only the hash the SOD holds for them is carried. DG14 and DG15 (keys, no personal data)
    ///     are always carried.
    ///   - trustStore: the store the read was verified with (names the anchors by fingerprint).
    public static func make(
        files: [LDSFile: [UInt8]], result: ReadResult, disclose: Set<Int>? = nil, trustStore: TrustStore?,
        software: Software, at date: Date = Date()
    ) throws(EvidenceError) -> EvidenceBundle {
        guard let sod = files[.sod], result.status != .failed else { throw .notAvailable }
        var carried: [String: String] = [:]
        var withheld: [String: WithheldGroup] = [:]
        let securityObject = unverifiedSecurityObject(sod)
        for (file, bytes) in files where carriable(file) {
            // DG14 and DG15 hold keys, not personal data, and AA cannot be checked without DG15.
            if let number = file.dataGroupNumber, let disclose, !disclose.contains(number), number != 14, number != 15 {
                // Withheld: the hash the SOD signs (computed as the SOD computes it).
                if let (digest, _) = securityObject {
                    withheld[file.name] = WithheldGroup(hashAlgorithm: digest.rawValue, hash: digest.hash(bytes).hex)
                }
                continue
            }
            carried[file.name] = Data(bytes).base64EncodedString()
        }
        let aa = ActiveAuthenticationEvidence(check: result.checks.activeAuthentication)
        var anchors: [TrustAnchor] = []
        if let trustStore {
            let report = PassiveAuthentication.verify(files: files, trustStore: trustStore, at: date)
            if let csca = report.csca {
                anchors.append(TrustAnchor(role: "csca", subject: csca.subject.description, sha256: DigestAlgorithm.sha256.hash(csca.derBytes).hex))
            }
            if let dsc = report.dsc {
                anchors.append(TrustAnchor(role: "dsc", subject: dsc.subject.description, sha256: DigestAlgorithm.sha256.hash(dsc.derBytes).hex))
            }
        }
        let chipAuthentication = result.checks.chipAuthentication.result == CheckResult.notPerformed
            ? nil : result.checks.chipAuthentication
        return EvidenceBundle(
            createdAt: UTCDate.iso8601(date), software: software, files: carried,
            withheld: withheld.isEmpty ? nil : withheld, activeAuthentication: aa, chipAuthentication: chipAuthentication,
            trustAnchors: anchors, verdict: Verdict(status: result.status, checks: result.checks))
    }

    /// The LDSSecurityObject's hash algorithm and hashes, read without verifying anything (to state
    /// a withheld group's hash; a verifier compares it with the verified SOD's).
    static func unverifiedSecurityObject(_ sod: [UInt8]) -> (DigestAlgorithm, [Int: [UInt8]])? {
        guard let outer = try? BERExtent.contents(sod[...]), outer.tag == 0x77,
              let length = try? BERExtent.elementLength(outer.content),
              let signedData = try? SignedDataVerifier.parse(outer.content.prefix(length)),
              let content = signedData.eContent,
              let securityObject = try? LDSSecurityObject(derEncoded: content),
              let digest = DigestAlgorithm(oid: securityObject.hashAlgorithmOID) else { return nil }
        return (digest, securityObject.hashesByDataGroup)
    }
}
