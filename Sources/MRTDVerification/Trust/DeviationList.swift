public import FoundationEssentials
public import MRTDCrypto
import MRTDCore
public import SwiftASN1

/// A deviation list (ICAO Doc 9303-12, 8th ed., §10 "Deviation List Structure"; the format BSI
/// TR-03129 introduced): the signed list in which an issuing State names its documents that deviate
/// from Doc 9303, and how.
///
/// It is a CMS SignedData (RFC 5652) with eContentType `id-icao-DeviationList` (2.23.136.1.1.7),
/// signed by a Deviation List Signer whose certificate is issued by the State's CSCA. The eContent
/// (Doc 9303-12 §10.2, `DEFINITIONS IMPLICIT TAGS`):
///
/// ```
/// DeviationList ::= SEQUENCE { version INTEGER {v0(0)}, digestAlgorithm AlgorithmIdentifier OPTIONAL,
///                              deviations SET OF Deviation }
/// Deviation ::= SEQUENCE { documents DeviationDocuments, descriptions SET OF DeviationDescription }
/// DeviationDescription ::= SEQUENCE { description PrintableString OPTIONAL, deviationType OBJECT IDENTIFIER,
///                                     parameters [0] ANY DEFINED BY deviationType OPTIONAL, nationalUse [1] ANY OPTIONAL }
/// DeviationDocuments ::= SEQUENCE { documentType [0] PrintableString (SIZE(2)) OPTIONAL,
///                                   dscIdentifier DocumentSignerIdentifier OPTIONAL,
///                                   issuingDate [4] IssuancePeriod OPTIONAL,
///                                   documentNumbers [5] SET OF PrintableString OPTIONAL }
/// DocumentSignerIdentifier ::= CHOICE { issuerAndSerialNumber [1] IssuerAndSerialNumber,
///                                       subjectKeyIdentifier [2] SubjectKeyIdentifier, certificateDigest [3] Digest }
/// IssuancePeriod ::= SEQUENCE { firstIssued GeneralizedTime, lastIssued GeneralizedTime }
/// Datagroup ::= INTEGER { dg1(1) … dg16(16), sod(20), com(21) }
/// MRZField ::= INTEGER { generic(0), documentCode(1), issuingState(2), personName(3), documentNumber(4),
///                        nationality(5), dateOfBirth(6), sex(7), dateOfExpiry(8), optionalData(9) }
/// ```
///
/// `parameters` is an `ANY` and so explicitly tagged; the deviation types that take a `Datagroup` or
/// `MRZField` carry that INTEGER inside `[0]`.
public struct DeviationList: Sendable {
    /// One listed deviation: which documents, and what is wrong with them.
    public struct Deviation: Sendable {
        public var documents: Documents
        public var descriptions: [Description]
    }

    /// `DeviationDocuments`: every field present must match (absent fields match anything).
    public struct Documents: Sendable {
        /// Document code as in the MRZ (`P`, `ID`), fillers stripped.
        public var documentType: String?
        public var dscIdentifier: SignerIdentifier?
        /// Documents issued in this period (inclusive).
        public var issuedFrom: Date?
        public var issuedUntil: Date?
        /// Document numbers, fillers stripped.
        public var documentNumbers: [String]?
    }

    /// `DocumentSignerIdentifier`.
    public enum SignerIdentifier: Sendable, Equatable {
        case issuerAndSerialNumber(issuer: DistinguishedName, serial: [UInt8])
        case subjectKeyIdentifier([UInt8])
        /// The hash of the DSC's DER encoding, with the list's digestAlgorithm (SHA-256 when absent).
        case certificateDigest([UInt8])
    }

    /// `DeviationDescription`.
    public struct Description: Sendable {
        public var text: String?
        public var type: DeviationType
        /// The deviationType OID as listed.
        public var oid: ASN1ObjectIdentifier
        /// The `Datagroup` or `MRZField` INTEGER parameter, for the types that take one.
        public var parameter: Int?
    }

    /// The deviation types of Doc 9303-12 §10.2.
    public enum DeviationType: String, Sendable, CaseIterable {
        case certOrKey = "CertOrKey"
        case dsSignature = "CertOrKey-DSSignature"
        case dsEncoding = "CertOrKey-DSEncoding"
        case cscaEncoding = "CertOrKey-CSCAEncoding"
        case aaKeyCompromised = "CertOrKey-AAKeyCompromised"
        case lds = "LDS"
        case dgMalformed = "LDS-DGMalformed"
        case dgHashWrong = "LDS-DGHashWrong"
        case sodSignatureWrong = "LDS-SODSignatureWrong"
        case comInconsistent = "LDS-COMInconsistent"
        case mrz = "MRZ"
        case mrzWrongData = "MRZ-WrongData"
        case mrzWrongCheckDigit = "MRZ-WrongCheckDigit"
        case chip = "Chip"
        case nationalUse = "NationalUse"
        case unknown

        /// `id-Deviation-…` (2.23.136.1.1.7.x[.y]); `nil` for ``unknown``.
        public var oid: ASN1ObjectIdentifier? {
            switch self {
            case .certOrKey: [2, 23, 136, 1, 1, 7, 1]
            case .dsSignature: [2, 23, 136, 1, 1, 7, 1, 1]
            case .dsEncoding: [2, 23, 136, 1, 1, 7, 1, 2]
            case .cscaEncoding: [2, 23, 136, 1, 1, 7, 1, 3]
            case .aaKeyCompromised: [2, 23, 136, 1, 1, 7, 1, 4]
            case .lds: [2, 23, 136, 1, 1, 7, 2]
            case .dgMalformed: [2, 23, 136, 1, 1, 7, 2, 1]
            case .dgHashWrong: [2, 23, 136, 1, 1, 7, 2, 2]
            case .sodSignatureWrong: [2, 23, 136, 1, 1, 7, 2, 3]
            case .comInconsistent: [2, 23, 136, 1, 1, 7, 2, 4]
            case .mrz: [2, 23, 136, 1, 1, 7, 3]
            case .mrzWrongData: [2, 23, 136, 1, 1, 7, 3, 1]
            case .mrzWrongCheckDigit: [2, 23, 136, 1, 1, 7, 3, 2]
            case .chip: [2, 23, 136, 1, 1, 7, 4]
            case .nationalUse: [2, 23, 136, 1, 1, 7, 5]
            case .unknown: nil
            }
        }

        init(oid: ASN1ObjectIdentifier) {
            self = Self.allCases.first { $0.oid == oid && $0 != .unknown } ?? .unknown
        }
    }


    public var deviations: [Deviation]
    /// The digest for `certificateDigest` identifiers.
    public var digest: DigestAlgorithm
    /// Where it was loaded from.
    public var source: String
    /// The Deviation List Signer, verified, and the CSCA it chains to.
    public var signer: Certificate
    public var signerCSCA: Certificate

    /// Parses the `DeviationList` eContent.
    static func parseContent(_ content: [UInt8]) throws -> (digest: DigestAlgorithm, deviations: [Deviation]) {
        try BER.sequence(BER.parse(content), identifier: .sequence) { nodes in
            let version = try Int(berEncoded: nodes.required("DeviationList version", identifier: .integer))
            guard version == 0 else { throw ASN1Error.invalidASN1Object(reason: "DeviationList version is not v0") }
            let digest = try nodes.next(ifIdentifier: .sequence).map { try AlgorithmIdentifier(berEncoded: $0).digestAlgorithm() }
            let deviations = try BER.set(nodes.required("DeviationList deviations"), identifier: .set) { entries in
                var deviations: [Deviation] = []
                while let entry = entries.next() { deviations.append(try Deviation(berEncoded: entry)) }
                return deviations
            }
            return (digest ?? .sha256, deviations)
        }
    }

    fileprivate static func printable(_ node: ASN1Node) throws -> String {
        String(decoding: try node.primitiveBytes(), as: UTF8.self)
    }

    /// Whether `bytes` are a CMS SignedData whose eContentType is `id-icao-DeviationList` (and so
    /// not a master list), read by the parser every SignedData goes through.
    static func isDeviationList(_ bytes: [UInt8]) -> Bool {
        guard let length = try? BERExtent.elementLength(bytes[...]),
              let signedData = try? SignedDataVerifier.parse(bytes.prefix(length)) else { return false }
        return signedData.eContentType == ASN1ObjectIdentifier.ICAO.deviationList
    }
}

/// The outcome of loading one deviation list: `verified`, or why it was rejected.
public struct DeviationListLoadResult: Sendable {
    public var list: DeviationList?
    /// `verified`, or a reason code (`sodSignatureInvalid`, `cscaNotFound`, `sodContentTypeInvalid`, …).
    public var verdict: String
    public var detail: String?
}

extension TrustStore {
    /// Verifies a deviation list (Doc 9303-12 §10.1): DER SignedData, eContentType
    /// `id-icao-DeviationList`, signed attributes and signature, and the signer's chain to a CSCA
    /// **already in this store** (a CSCA carried in the list itself is not trusted: the list must come
    /// from a State whose CSCA the operator trusts). The signer must allow digitalSignature.
    public func verifyDeviationList(_ bytes: [UInt8], source: String, at date: Date = Date()) -> DeviationListLoadResult {
        do throws(PAFailure) {
            let bounded: ArraySlice<UInt8>
            do { bounded = bytes.prefix(try BERExtent.elementLength(bytes[...])) } catch {
                throw PAFailure(.sodMalformed, "deviation list: \(error)")
            }
            let signedData = try SignedDataVerifier.parse(bounded)
            let verification = try SignedDataVerifier.verify(
                signedData, expectedContentType: ASN1ObjectIdentifier.ICAO.deviationList, externalSigners: { _ in [] })
            guard verification.signer.allowsDigitalSignature else {
                throw PAFailure(.dscKeyUsageInvalid, "deviation list signer's keyUsage lacks digitalSignature")
            }
            let chain = try verifyChain(of: verification.signer, role: .masterListSigner, at: date)
            let parsed: (digest: DigestAlgorithm, deviations: [DeviationList.Deviation])
            do { parsed = try DeviationList.parseContent(verification.content) } catch {
                throw PAFailure(.sodMalformed, "DeviationList: \(error)")
            }
            let list = DeviationList(
                deviations: parsed.deviations, digest: parsed.digest, source: source, signer: verification.signer,
                signerCSCA: chain.anchor.certificate)
            return DeviationListLoadResult(list: list, verdict: "verified")
        } catch {
            return DeviationListLoadResult(list: nil, verdict: error.reason.rawValue, detail: error.detail)
        }
    }

    /// Verifies and adds a deviation list; a list that does not verify is rejected whole and reported.
    @discardableResult
    public mutating func addDeviationList(_ bytes: [UInt8], path: String, at date: Date = Date()) -> DeviationListLoadResult {
        let outcome = verifyDeviationList(bytes, source: path, at: date)
        var entry = TrustStoreReport.DeviationListEntry(path: path, signature: outcome.verdict, detail: outcome.detail)
        if let list = outcome.list {
            deviationLists.append(list)
            entry.signer = list.signer.subject.description
            entry.signerCSCA = list.signerCSCA.subject.description
            entry.deviations = list.deviations.count
        } else {
            report.rejected.append(.init(path: path, reason: "deviation list not verified: \(outcome.verdict): \(outcome.detail ?? "")"))
        }
        report.deviationLists = (report.deviationLists ?? []) + [entry]
        return outcome
    }
}

extension TrustStoreReport {
    /// A deviation list and the verdict on its signature.
    public struct DeviationListEntry: Sendable, Equatable, Codable {
        public var path: String
        /// `verified`, or the reason code it was rejected for.
        public var signature: String
        public var detail: String?
        public var signer: String?
        public var signerCSCA: String?
        /// Deviations it lists (0 when rejected).
        public var deviations = 0

        public init(path: String, signature: String, detail: String? = nil) {
            self.path = path
            self.signature = signature
            self.detail = detail
        }
    }
}

extension DeviationList.Deviation: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let documents = try DeviationList.Documents(berEncoded: nodes.required("Deviation documents"))
            let descriptions = try BER.set(nodes.required("Deviation descriptions"), identifier: .set) { entries in
                var descriptions: [DeviationList.Description] = []
                while let entry = entries.next() { descriptions.append(try DeviationList.Description(berEncoded: entry)) }
                return descriptions
            }
            guard !descriptions.isEmpty else { throw ASN1Error.invalidASN1Object(reason: "Deviation without a description") }
            return DeviationList.Deviation(documents: documents, descriptions: descriptions)
        }
    }
}

extension DeviationList.Documents: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            var documents = DeviationList.Documents()
            while let field = nodes.next() { try documents.read(field) }
            return documents
        }
    }

    /// One field of `DeviationDocuments`, told apart by its context tag.
    private mutating func read(_ field: ASN1Node) throws {
        switch field.identifier {
        case .context(0):
            documentType = try DeviationList.printable(field).replacing("<", with: "")
        case .context(1):
            dscIdentifier = try BER.sequence(field, identifier: .context(1)) { parts in
                let issuer = try DistinguishedName(berEncoded: parts.required("issuerAndSerialNumber issuer"))
                let serial = try parts.required("issuerAndSerialNumber serialNumber", identifier: .integer).primitiveBytes()
                return .issuerAndSerialNumber(issuer: issuer, serial: Array(serial))
            }
        case .context(2):
            dscIdentifier = .subjectKeyIdentifier(Array(try field.primitiveBytes()))
        case .context(3):
            dscIdentifier = .certificateDigest(Array(try field.primitiveBytes()))
        case .context(4):
            (issuedFrom, issuedUntil) = try BER.sequence(field, identifier: .context(4)) { period in
                (try UTCDate.parseTime(period.required("IssuancePeriod firstIssued")).date,
                 try UTCDate.parseTime(period.required("IssuancePeriod lastIssued")).date)
            }
        case .context(5):
            documentNumbers = try BER.set(field, identifier: .context(5)) { numbers in
                var out: [String] = []
                while let number = numbers.next() { out.append(try DeviationList.printable(number).replacing("<", with: "")) }
                return out
            }
        default:
            throw ASN1Error.invalidASN1Object(reason: "unexpected DeviationDocuments field \(field.identifier)")
        }
    }
}

extension DeviationList.Description: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            defer { nodes.skipRemaining() }  // nationalUse
            let text = try (nodes.next(ifIdentifier: .printableString) ?? nodes.next(ifIdentifier: .utf8String))
                .map(DeviationList.printable)
            let oid = try nodes.required("deviationType", identifier: .objectIdentifier).oid().owned
            var description = DeviationList.Description(
                text: text, type: DeviationList.DeviationType(oid: oid), oid: oid, parameter: nil)
            if let parameters = nodes.next(ifIdentifier: .context(0)) {
                description.parameter = try BER.set(parameters, identifier: .context(0)) { inner in
                    defer { inner.skipRemaining() }
                    return try inner.next(ifIdentifier: .integer).map { try Int(berEncoded: $0) }
                }
            }
            return description
        }
    }
}
