public import FoundationEssentials
public import MRTDCore
import SwiftASN1
import MRTDPlatform

/// Why a trust source was refused by `mrtdctl trust update` (docs/trust-update.md). Nothing of a
/// refused source is installed.
public struct TrustUpdateError: Error, CodedError, CustomStringConvertible, Sendable, Equatable {
    public var errorCode: ErrorCode
    public var message: String
    public var description: String { "\(errorCode.rawValue): \(message)" }

    public init(_ code: ErrorCode, _ message: String) {
        errorCode = code
        self.message = message
    }
}

/// Published trust material taken apart, verified and checked against what is installed, before
/// `mrtdctl trust update` installs anything (docs/trust-update.md).
///
/// A source is one download or file: a ZIP holding `.ml` (BSI, RDW), a bare CMS master list or
/// deviation list, an ICAO PKD LDIF (`CscaMasterListData;binary` or, since 2026,
/// `pkdMasterListContent;binary`; `certificateRevocationList;binary`), or a DER/PEM CRL. Every item
/// must verify (CMS signature, signer chained to a CSCA of the list itself or of the current store;
/// CRLs signed by a CSCA of the store) and must not be older than the installed item of the same
/// country (lists) or issuer (CRLs), else the whole source is refused.
public enum TrustUpdate {
    /// How far ahead of the clock a list's signingTime or a CRL's thisUpdate may be (clock drift
    /// between publisher and kiosk); anything later is refused, since a list dated in the future
    /// would outrank every genuine list of its country until then.
    public static let maximumSkew: TimeInterval = 24 * 3600

    /// What vouches for a source's master lists besides the current trust: SHA-256 fingerprints
    /// (hex, lower case) of CSCA certificates, one of which must anchor each list's signer.
    public struct Pins: Sendable, Equatable {
        public var sha256: Set<String>
        public init(_ sha256: Set<String> = []) { self.sha256 = Set(sha256.map { $0.lowercased() }) }
        public var isEmpty: Bool { sha256.isEmpty }

        /// A pin as written: `sha256:HEX` (64 hex digits), else nil.
        public static func parse(_ text: String) -> String? {
            let lower = text.lowercased()
            guard lower.hasPrefix("sha256:") else { return nil }
            let hex = lower.dropFirst("sha256:".count)
            guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
            return String(hex)
        }
    }

    /// What an item is.
    public enum Kind: String, Sendable, Codable {
        case masterList, deviationList, crl
    }

    /// One list or CRL from a source.
    public struct Item: Sendable {
        public var kind: Kind
        public var bytes: [UInt8]
        /// Where in the source it was found (`DE_ML.zip!DE_ML_2026-11-01.ml`, `icaopkd.ldif#entry3`).
        public var origin: String
    }

    /// A verified item and where it goes.
    public struct Planned: Sendable {
        public var kind: Kind
        public var bytes: [UInt8]
        public var origin: String
        /// Relative to the trust directory: `masterlists/DE.ml`, `crls/DE-….crl`, `deviationlists/DE.dvl`.
        public var relativePath: String
        /// The list's signingTime (else its signer's notBefore), or the CRL's thisUpdate.
        public var issued: Date
        /// The date of what is installed for the same place (country or CRL issuer), if anything.
        public var installed: Date?
        /// The same item is installed already (same date): nothing to write.
        public var unchanged: Bool { installed == issued }
        public var country: String
    }

    /// Limits on what a source may hold.
    public struct Limits: Sendable {
        public var sourceBytes: Int
        public var inflatedBytes: Int
        public static let standard = Limits(sourceBytes: 64 << 20, inflatedBytes: 128 << 20)
        public init(sourceBytes: Int, inflatedBytes: Int) {
            self.sourceBytes = sourceBytes
            self.inflatedBytes = inflatedBytes
        }
    }

    /// The lists and CRLs in a source's bytes; `name` is the URL's or file's last component.
    public static func items(in bytes: [UInt8], name: String, limits: Limits = .standard) throws(TrustUpdateError) -> [Item] {
        guard bytes.count <= limits.sourceBytes else {
            throw TrustUpdateError(.trustUpdateTooLarge, "\(name): \(bytes.count) bytes, more than the limit of \(limits.sourceBytes)")
        }
        guard !bytes.isEmpty else { throw TrustUpdateError(.trustUpdateUnrecognized, "\(name): empty") }
        var items: [Item] = []
        if ZipArchive.looksLikeZip(bytes) {
            let archive: ZipArchive
            do { archive = try ZipArchive(bytes, maxEntryBytes: limits.sourceBytes, maxTotalBytes: limits.inflatedBytes) } catch {
                throw TrustUpdateError(.trustUpdateArchiveInvalid, "\(name): \(error)")
            }
            for entry in archive.entries {
                let entryName = PathString.lastComponent(entry.name)
                if entryName.hasPrefix(".") || entryName.lowercased().hasSuffix(".txt") || entryName.lowercased().hasSuffix(".md") { continue }
                items += try single(entry.bytes, origin: "\(name)!\(entry.name)", nested: true)
            }
        } else {
            items = try single(bytes, origin: name, nested: false)
        }
        guard !items.isEmpty else {
            throw TrustUpdateError(.trustUpdateUnrecognized, "\(name): no master list, deviation list or CRL in it")
        }
        return items
    }

    /// One file's items: LDIF, PEM, or DER (a CMS list or a CRL). In an archive, files that are
    /// none of these are skipped; a source that is none of these is refused.
    private static func single(_ bytes: [UInt8], origin: String, nested: Bool) throws(TrustUpdateError) -> [Item] {
        if let text = ldifText(bytes) {
            return ldifItems(text, origin: origin)
        }
        if let text = PEM.textIfPEM(bytes) {
            return PEM.blocks(text).compactMap { (block) -> Item? in
                switch block.label {
                case "X509 CRL": Item(kind: .crl, bytes: block.der, origin: origin)
                case "CMS", "PKCS7": Item(kind: DeviationList.isDeviationList(block.der) ? .deviationList : .masterList, bytes: block.der, origin: origin)
                default: nil
                }
            }
        }
        if TrustStore.looksLikeContentInfo(bytes) {
            return [Item(kind: DeviationList.isDeviationList(bytes) ? .deviationList : .masterList, bytes: bytes, origin: origin)]
        }
        if (try? CertificateRevocationList(derEncoded: bytes)) != nil {
            return [Item(kind: .crl, bytes: bytes, origin: origin)]
        }
        if nested { return [] }
        throw TrustUpdateError(.trustUpdateUnrecognized, "\(origin): not a ZIP, LDIF, master list, deviation list or CRL")
    }

    /// The text of an LDIF file (`dn:` or `version:` first, after comments), else nil.
    static func ldifText(_ bytes: [UInt8]) -> String? {
        guard !bytes.prefix(256).contains(0) else { return nil }
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") && !line.isEmpty {
            let lower = line.lowercased()
            return lower.hasPrefix("dn:") || lower.hasPrefix("version:") ? String(decoding: bytes, as: UTF8.self) : nil
        }
        return nil
    }

    /// The ICAO PKD attribute names of a master list: `CscaMasterListData` (until 2026) and
    /// `pkdMasterListContent` (since), each with or without `;binary`.
    static let masterListAttributes: Set<String> = [
        "cscamasterlistdata", "cscamasterlistdata;binary", "pkdmasterlistcontent", "pkdmasterlistcontent;binary",
    ]

    private static func ldifItems(_ text: String, origin: String) -> [Item] {
        var items: [Item] = []
        var entry = 0
        for attribute in LDIF.attributes(text) {
            let name = attribute.name.lowercased()
            if name == "dn" { entry += 1; continue }
            let kind: Kind
            if masterListAttributes.contains(name) {
                kind = .masterList
            } else if name == "certificaterevocationlist;binary" || name == "certificaterevocationlist" {
                kind = .crl
            } else {
                continue
            }
            guard let value = attribute.binaryValue, !value.isEmpty else { continue }
            items.append(Item(kind: kind == .masterList && DeviationList.isDeviationList(value) ? .deviationList : kind,
                              bytes: value, origin: "\(origin)#entry\(entry)"))
        }
        return items
    }

    /// Verifies every item against `store` (the trust now in use: the shipped lists and the trust
    /// directory) and decides where each goes. Throws on the first item that does not verify. Of
    /// several items for the same place (an ICAO LDIF may hold several lists of one country) the
    /// newest is kept; when even that one is older than what is installed, the source is refused.
    ///
    /// A master list must be anchored outside itself: its signer chains to a CSCA of the current
    /// trust (the shipped lists hold the CSCAs that sign the next lists), or to one pinned for the
    /// source (`pins`). No list or CRL may be dated more than ``maximumSkew`` after `date`.
    public static func plan(
        _ items: [Item], store: TrustStore, installedDirectory: String?, pins: Pins = Pins(), at date: Date = Date()
    ) throws(TrustUpdateError) -> [Planned] {
        var planned: [String: Planned] = [:]
        for item in items {
            let candidate: Planned
            switch item.kind {
            case .masterList: candidate = try planMasterList(item, store: store, pins: pins, at: date)
            case .deviationList: candidate = try planDeviationList(item, store: store, installedDirectory: installedDirectory, at: date)
            case .crl: candidate = try planCRL(item, store: store)
            }
            if candidate.issued.timeIntervalSince(date) > maximumSkew {
                throw TrustUpdateError(.trustUpdateNotYetValid,
                                       "\(candidate.origin): issued \(UTCDate.iso8601(candidate.issued)), after now (\(UTCDate.iso8601(date))): refused until then")
            }
            if let other = planned[candidate.relativePath], other.issued >= candidate.issued { continue }
            planned[candidate.relativePath] = candidate
        }
        let sorted = planned.values.sorted { $0.relativePath < $1.relativePath }
        for entry in sorted {
            guard let installed = entry.installed, entry.issued < installed else { continue }
            let what = "\(entry.kind == .crl ? "CRL" : entry.kind == .masterList ? "master list" : "deviation list") of \(entry.country)"
            throw TrustUpdateError(.trustUpdateOlderThanInstalled,
                                   "\(entry.origin): \(what) issued \(UTCDate.iso8601(entry.issued)), older than the installed one (\(UTCDate.iso8601(installed)))")
        }
        return sorted
    }

    private static func planMasterList(_ item: Item, store: TrustStore, pins: Pins, at date: Date) throws(TrustUpdateError) -> Planned {
        var scratch = store
        let entry = scratch.addMasterList(item.bytes, path: item.origin, at: date)
        guard entry.signature == "verified", let country = entry.country, let issuedText = entry.issued,
              let issued = UTCDate.parseISO8601(issuedText) else {
            throw TrustUpdateError(.trustUpdateNotVerified, "\(item.origin): master list not verified: \(entry.signature): \(entry.detail ?? "")")
        }
        // Nothing becomes trusted because it vouches for itself: the CSCA the signer chains to must
        // be in the trust in use, or pinned for this source.
        let fingerprint = entry.signerCSCASHA256 ?? ""
        if entry.signerCSCAFromList != false && !pins.sha256.contains(fingerprint) {
            throw TrustUpdateError(.trustUpdateNotAnchored,
                                   "\(item.origin): master list of \(country) signed under \(entry.signerCSCA ?? "?"), a CSCA only the list itself carries (sha256:\(fingerprint)); install it only by pinning that CSCA for the source (docs/trust-update.md)")
        }
        let installed = store.report.masterLists
            .filter { $0.signature == "verified" && $0.country == country }
            .compactMap { $0.issued.flatMap(UTCDate.parseISO8601) }.max()
        return Planned(kind: .masterList, bytes: item.bytes, origin: item.origin, relativePath: "masterlists/\(fileName(country)).ml",
                       issued: issued, installed: installed, country: country)
    }

    private static func planDeviationList(_ item: Item, store: TrustStore, installedDirectory: String?, at date: Date) throws(TrustUpdateError) -> Planned {
        let outcome = store.verifyDeviationList(item.bytes, source: item.origin, at: date)
        guard let list = outcome.list else {
            throw TrustUpdateError(.trustUpdateNotVerified, "\(item.origin): deviation list not verified: \(outcome.verdict): \(outcome.detail ?? "")")
        }
        let country = list.signerCSCA.subject.country ?? "XX"
        let issued = signingTime(item.bytes) ?? list.signer.notBefore
        let relativePath = "deviationlists/\(fileName(country)).dvl"
        var installed: Date?
        if let installedDirectory,
           let bytes = try? FileProvenance.read(PathString.join(installedDirectory, relativePath), limit: 64 << 20, writer: FileProvenance.trustListWriter()),
           store.verifyDeviationList(bytes, source: relativePath, at: date).list != nil {
            installed = signingTime(bytes)
        }
        return Planned(kind: .deviationList, bytes: item.bytes, origin: item.origin, relativePath: relativePath,
                       issued: issued, installed: installed, country: country)
    }

    private static func planCRL(_ item: Item, store: TrustStore) throws(TrustUpdateError) -> Planned {
        let crl: CertificateRevocationList
        do { crl = try CertificateRevocationList(derEncoded: item.bytes) } catch {
            throw TrustUpdateError(.trustUpdateUnrecognized, "\(item.origin): CRL does not parse: \(error)")
        }
        let issuers = store.anchors(named: crl.issuer)
        guard !issuers.isEmpty else {
            throw TrustUpdateError(.trustUpdateNotVerified, "\(item.origin): CRL not verified: no CSCA in the store is named \(crl.issuer)")
        }
        guard issuers.contains(where: { anchor in (try? anchor.publicKey()).map { crl.isSigned(by: $0) } ?? false }) else {
            throw TrustUpdateError(.trustUpdateNotVerified, "\(item.origin): CRL not verified: its signature does not verify with the key of any CSCA named \(crl.issuer)")
        }
        let installed = store.crls.filter { $0.issuer == crl.issuer }.map(\.thisUpdate).max()
        let country = crl.issuer.country ?? "XX"
        let relativePath = "crls/\(fileName(country))-\(fnv1a(crl.issuer.description)).crl"
        return Planned(kind: .crl, bytes: item.bytes, origin: item.origin, relativePath: relativePath,
                       issued: crl.thisUpdate, installed: installed, country: country)
    }

    /// The CMS signingTime of a SignedData, nil when absent or unparsable.
    static func signingTime(_ bytes: [UInt8]) -> Date? {
        guard let length = try? BERExtent.elementLength(bytes[...]),
              let signedData = try? SignedDataVerifier.parse(bytes.prefix(length)),
              let value = signedData.signerInfos.first?.signedAttributes[ASN1ObjectIdentifier.CMS.signingTime]?.first else { return nil }
        return try? UTCDate.parseTime(value).date
    }

    /// A country code safe as a file name (letters only, upper case), else `XX`.
    static func fileName(_ country: String) -> String {
        let letters = country.uppercased().unicodeScalars.filter { $0.value >= 65 && $0.value <= 90 }
        return letters.isEmpty || letters.count > 3 ? "XX" : String(String.UnicodeScalarView(letters))
    }

    /// 64-bit FNV-1a of a text, 16 hex digits: a stable file name for a CRL issuer.
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash.hex
    }
}

/// What `mrtdctl trust update` last did per source, kept in the trust directory as
/// `.trust-update.json` (hidden: a trust store load skips it); the daemon shows it in
/// `GET /v1/health` and `/metrics` after a reload.
public struct TrustUpdateState: Codable, Sendable, Equatable {
    public static let fileName = ".trust-update.json"

    public var sources: [TrustSourceStatus]

    public init(sources: [TrustSourceStatus] = []) { self.sources = sources }

    /// The state of `directory`, empty when there is none or it does not decode.
    public static func load(directory: String) -> TrustUpdateState {
        guard let bytes = try? FileProvenance.read(PathString.join(directory, fileName), limit: 1 << 20, writer: FileProvenance.trustListWriter()),
              let state = try? JSONDecoder().decode(TrustUpdateState.self, from: Data(bytes)) else { return TrustUpdateState() }
        return state
    }
}

extension UTCDate {
    /// Parses what ``iso8601(_:)`` writes.
    static func parseISO8601(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle())
    }
}

extension UInt64 {
    fileprivate var hex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: Swift.max(0, 16 - digits.count)) + digits
    }
}
