public import FoundationEssentials
import Glibc
import MRTDCore
import SwiftASN1
import MRTDCrypto
import MRTDPlatform

extension TrustStore {
    /// How much a load reads at most: a trust store is a few megabytes (the shipped master lists
    /// are under one, the ICAO PKD's largest LDIF download some tens); without a bound a 1 GB file
    /// took the daemon to 2.1 GB and past its unit's MemoryMax.
    public struct LoadLimits: Sendable, Equatable {
        /// The largest file read.
        public var fileBytes: Int
        /// All files together.
        public var totalBytes: Int
        public static let standard = LoadLimits(fileBytes: 64 << 20, totalBytes: 128 << 20)

        public init(fileBytes: Int, totalBytes: Int) {
            self.fileBytes = fileBytes
            self.totalBytes = totalBytes
        }
    }

    /// Loads every path: a directory is searched recursively (`csca/`, `masterlists/`, `crls/`
    /// and anything else in it), a file is read by its content. Certificates, CRLs and LDIF
    /// entries are loaded first, then master lists, whose signatures are verified (signer chained
    /// to a CSCA in the list itself or already in the store); a master list that does not verify
    /// is rejected whole. Nothing is ever loaded silently: see ``report``.
    ///
    /// Files named `README*`, `*.md`, `*.txt`, `.gitkeep`, hidden files and private keys are skipped.
    ///
    /// Only material no other user can have planted is read (``FileProvenance``): a directory, a
    /// file, or a link's target (and the directory holding it) owned by another non-root user (the
    /// trust-list updater `mrtdd-trust` excepted, when the system has that user) or writable by
    /// others is rejected, and so is a link that dangles or loops. No file larger than
    /// `limits.fileBytes` is read, nor more than `limits.totalBytes` in all:
    /// each is a rejection, so a reload keeps the running store.
    public static func load(paths: [String], at date: Date = Date(), limits: LoadLimits = .standard) -> TrustStore {
        load(paths: paths, at: date, limits: limits, writer: FileProvenance.trustListWriter())
    }

    /// ``load(paths:at:limits:)`` with the trust-list writer's uid given (nil: none).
    package static func load(paths: [String], at date: Date = Date(), limits: LoadLimits = .standard, writer: UInt32?) -> TrustStore {
        let start = ContinuousClock.now
        var store = TrustStore()
        var pendingMasterLists: [(bytes: [UInt8], path: String, test: Bool)] = []
        var total = 0
        for path in paths {
            guard FileManager.default.fileExists(atPath: path) else {
                store.report.rejected.append(.init(path: path, reason: "no such file or directory"))
                continue
            }
            for file in files(at: path, writer: writer, rejected: &store.report.rejected) {
                let bytes: [UInt8]
                do { bytes = try FileProvenance.read(file, limit: limits.fileBytes, writer: writer) } catch {
                    store.report.rejected.append(.init(path: file, reason: error.reason))
                    continue
                }
                guard !bytes.isEmpty else {
                    store.report.rejected.append(.init(path: file, reason: "empty file"))
                    continue
                }
                total += bytes.count
                guard total <= limits.totalBytes else {
                    store.report.rejected.append(.init(path: file, reason: "the trust store is larger than its limit of \(limits.totalBytes) bytes"))
                    continue
                }
                store.loadFile(bytes, path: file, test: isTestPath(file), pendingMasterLists: &pendingMasterLists)
            }
        }
        for list in pendingMasterLists where !DeviationList.isDeviationList(list.bytes) {
            store.addMasterList(list.bytes, path: list.path, test: list.test, at: date)
        }
        // Deviation lists (eContentType id-icao-DeviationList, any file name; conventionally
        // `deviationlists/*.dvl`) after every CSCA is in: their signer must chain to one.
        for list in pendingMasterLists where DeviationList.isDeviationList(list.bytes) {
            store.addDeviationList(list.bytes, path: list.path, at: date)
        }
        store.checkCRLs(at: date)
        store.finishReport(at: date)
        let elapsed = ContinuousClock.now - start
        store.report.loadMilliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return store
    }

    /// Adds a CSCA master list (Doc 9303-12 §9) after verifying its signature; returns the verdict.
    @discardableResult
    public mutating func addMasterList(_ bytes: [UInt8], path: String, test: Bool = false, at date: Date = Date()) -> TrustStoreReport.MasterList {
        var entry = TrustStoreReport.MasterList(path: path, signature: "verified", certificates: 0, added: 0)
        do throws(PAFailure) {
            let bounded: ArraySlice<UInt8>
            do { bounded = bytes.prefix(try BERExtent.elementLength(bytes[...])) } catch {
                throw PAFailure(.sodMalformed, "master list: \(error)")
            }
            // As for SODs: bytes after the SignedData are ignored, with a warning.
            if bounded.count < bytes.count {
                entry.warnings = ["masterListTrailingBytes"]
                report.warnings.append("masterListTrailingBytes: \(path): \(bytes.count - bounded.count) bytes after the SignedData ignored")
            }
            let signedData = try SignedDataVerifier.parse(bounded)
            let verification = try SignedDataVerifier.verify(
                signedData, expectedContentType: ASN1ObjectIdentifier.ICAO.cscaMasterList, externalSigners: { _ in [] }, signerKeys: signerKeys)
            entry.signer = verification.signer.subject.description
            entry.country = verification.signer.issuer.country
            let issued = verification.signingTime ?? verification.signer.notBefore
            entry.issued = UTCDate.iso8601(issued)
            entry.issuedFrom = verification.signingTime == nil ? "signerNotBefore" : "signingTime"
            let age = Int(date.timeIntervalSince(issued) / 86_400)
            entry.ageDays = age
            if issued.timeIntervalSince(date) > TrustUpdate.maximumSkew {
                // An installed list dated ahead of the clock would outrank every genuine list.
                entry.warnings = (entry.warnings ?? []) + ["masterListIssuedInTheFuture"]
                report.warnings.append("masterListIssuedInTheFuture: \(path) issued \(entry.issued!), after now: check the clock or the list")
            }
            if age > TrustStoreReport.masterListMaxAgeDays {
                entry.warnings = (entry.warnings ?? []) + ["masterListOlderThan180Days"]
                report.warnings.append("masterListOlderThan180Days: \(path) issued \(entry.issued!.prefix(10)), \(age) days ago")
            }
            let list: CscaMasterList
            do { list = try CscaMasterList(content: verification.content) } catch {
                throw PAFailure(.sodMalformed, "CscaMasterList: \(error)")
            }
            entry.certificates = list.certificates.count
            // The signer's CSCA may be in the list itself (as in the BSI and RDW lists).
            let issuers = list.certificates.filter { $0.subject == verification.signer.issuer }
            let chain = try verifyChain(of: verification.signer, role: .masterListSigner, at: date, extraAnchors: issuers)
            entry.signerCSCA = chain.anchor.certificate.subject.description
            entry.signerCSCASHA256 = DigestAlgorithm.sha256.hash(chain.anchor.certificate.derBytes).hex.lowercased()
            entry.signerCSCAFromList = !anchors.contains { $0.certificate.derBytes == chain.anchor.certificate.derBytes }
            for certificate in list.certificates where addAnchor(certificate, source: path, isTestMaterial: test) {
                entry.added += 1
            }
            if list.unparsable > 0 {
                report.rejected.append(.init(path: path, reason: "\(list.unparsable) master list entries are not certificates"))
            }
            report.sources.append(.init(path: path, kind: "masterList", certificates: entry.added, crls: 0))
        } catch {
            entry.signature = error.reason.rawValue
            entry.detail = error.detail
            report.rejected.append(.init(path: path, reason: "master list not verified: \(error.reason.rawValue): \(error.detail)"))
        }
        report.masterLists.append(entry)
        return entry
    }

    private mutating func loadFile(
        _ bytes: [UInt8], path: String, test: Bool,
        pendingMasterLists: inout [(bytes: [UInt8], path: String, test: Bool)]
    ) {
        let lower = path.lowercased()
        if lower.hasSuffix(".ldif") {
            loadLDIF(bytes, path: path, test: test, pendingMasterLists: &pendingMasterLists)
            return
        }
        if let text = PEM.textIfPEM(bytes) {
            let blocks = PEM.blocks(text)
            var certificates = 0
            var crlCount = 0
            var problems: [String] = []
            for block in blocks {
                switch block.label {
                case "CERTIFICATE", "TRUSTED CERTIFICATE":
                    switch addCertificate(block.der, path: path, test: test) {
                    case .some(let problem): problems.append(problem)
                    case .none: certificates += 1
                    }
                case "X509 CRL":
                    if let crl = try? CertificateRevocationList(derEncoded: block.der) { addCRL(crl, source: path); crlCount += 1 } else {
                        problems.append("CRL does not parse")
                    }
                case "CMS", "PKCS7":
                    pendingMasterLists.append((block.der, path, test))
                default: continue  // private keys and other blocks are never trust material
                }
            }
            for problem in problems { report.rejected.append(.init(path: path, reason: problem)) }
            if certificates + crlCount > 0 {
                report.sources.append(.init(path: path, kind: crlCount > 0 && certificates == 0 ? "crl" : "csca",
                                            certificates: certificates, crls: crlCount))
            } else if problems.isEmpty, !blocks.contains(where: { $0.label == "CMS" || $0.label == "PKCS7" }) {
                report.rejected.append(.init(path: path, reason: "no certificate or CRL in PEM file"))
            }
            return
        }
        // DER: a certificate, a CRL or a SignedData (master list), told apart by structure before
        // anything is parsed in full (a master list is a megabyte of certificates).
        if lower.hasSuffix(".ml") || lower.hasSuffix(".dvl") || Self.looksLikeContentInfo(bytes) {
            pendingMasterLists.append((bytes, path, test))
        } else if let certificate = try? Certificate(derEncoded: bytes) {
            if let problem = add(certificate, path: path, test: test) {
                report.rejected.append(.init(path: path, reason: problem))
            } else {
                report.sources.append(.init(path: path, kind: certificate.isCertificateAuthority ? "csca" : "documentSigner",
                                            certificates: 1, crls: 0))
            }
        } else if let crl = try? CertificateRevocationList(derEncoded: bytes) {
            addCRL(crl, source: path)
            report.sources.append(.init(path: path, kind: "crl", certificates: 0, crls: 1))
        } else {
            report.rejected.append(.init(path: path, reason: "not a certificate, CRL or master list"))
        }
    }

    /// Adds a DER certificate from an operator file; returns a rejection reason, or nil.
    private mutating func addCertificate(_ der: [UInt8], path: String, test: Bool) -> String? {
        guard let certificate = try? Certificate(derEncoded: der) else { return "certificate does not parse" }
        return add(certificate, path: path, test: test)
    }

    private mutating func add(_ certificate: Certificate, path: String, test: Bool) -> String? {
        if certificate.isCertificateAuthority {
            addAnchor(certificate, source: path, isTestMaterial: test)
        } else if certificate.allowsDigitalSignature {
            addDocumentSigner(certificate)
        } else {
            return "certificate \(certificate.subject) is neither a CA nor a signer"
        }
        return nil
    }

    /// ICAO PKD LDIF (RFC 2849): `userCertificate;binary`, `cACertificate;binary`,
    /// `certificateRevocationList;binary` and master lists (`pkdMasterListContent`, the 2026
    /// spelling, or `CscaMasterListData`) values, base64.
    private mutating func loadLDIF(
        _ bytes: [UInt8], path: String, test: Bool,
        pendingMasterLists: inout [(bytes: [UInt8], path: String, test: Bool)]
    ) {
        var certificates = 0
        var crlCount = 0
        var entry = 0
        for attribute in LDIF.attributes(String(decoding: bytes, as: UTF8.self)) {
            let name = attribute.name.lowercased()
            if name == "dn" { entry += 1; continue }
            guard let value = attribute.binaryValue else { continue }
            let origin = "\(path)#entry\(entry)"
            switch name {
            case "usercertificate;binary", "usercertificate", "cacertificate;binary", "cacertificate":
                if let problem = addCertificate(value, path: origin, test: test) {
                    report.rejected.append(.init(path: origin, reason: problem))
                } else {
                    certificates += 1
                }
            case "certificaterevocationlist;binary", "certificaterevocationlist":
                if let crl = try? CertificateRevocationList(derEncoded: value) { addCRL(crl, source: origin); crlCount += 1 } else {
                    report.rejected.append(.init(path: origin, reason: "CRL does not parse"))
                }
            case "pkdmasterlistcontent", "pkdmasterlistcontent;binary", "cscamasterlistdata", "cscamasterlistdata;binary":
                pendingMasterLists.append((value, origin, test))
            default: continue
            }
        }
        report.sources.append(.init(path: path, kind: "ldif", certificates: certificates, crls: crlCount))
    }

    /// Doc 9303-12 §7.1.4: a CRL counts only when a CSCA of the store signed it. Checked once at
    /// load so that `trust list` tells a used CRL from one that never will be: a CRL without a
    /// signing CSCA in the store, or whose signature does not verify, is rejected (and dropped).
    /// Among the valid CRLs of one CSCA the newest (latest thisUpdate) wins; the others are `superseded`.
    mutating func checkCRLs(at date: Date) {
        var keep: [Int] = []
        var entries: [TrustStoreReport.CRL] = []
        var signerOf: [Int: BytesKey] = [:]
        for (index, crl) in crls.enumerated() {
            var entry = TrustStoreReport.CRL(
                path: crlSources[index], issuer: crl.issuer.description, thisUpdate: UTCDate.iso8601(crl.thisUpdate),
                nextUpdate: crl.nextUpdate.map(UTCDate.iso8601), status: "current", revoked: crl.revokedCount)
            let issuers = anchors(named: crl.issuer)
            if issuers.isEmpty {
                entry.status = "rejected"
                entry.detail = "no CSCA in the store is named \(crl.issuer)"
            } else if let signer = issuers.first(where: { anchor in (try? anchor.publicKey()).map { crl.isSigned(by: $0) } ?? false }) {
                keep.append(index)
                signerOf[index] = BytesKey(signer.certificate.derBytes)
            } else {
                entry.status = "rejected"
                entry.detail = "signature does not verify with the key of any CSCA named \(crl.issuer)"
            }
            if entry.status == "rejected" {
                report.rejected.append(.init(path: entry.path, reason: "CRL rejected: \(entry.detail!)"))
            } else if crl.thisUpdate.timeIntervalSince(date) > TrustUpdate.maximumSkew {
                report.warnings.append("crlIssuedInTheFuture: \(entry.path) thisUpdate \(entry.thisUpdate), after now: check the clock or the CRL")
            }
            entries.append(entry)
        }
        // Newest valid CRL per signing CSCA.
        var newest: [BytesKey: Int] = [:]
        for index in keep {
            let key = signerOf[index]!
            if let best = newest[key], crls[best].thisUpdate >= crls[index].thisUpdate { continue }
            newest[key] = index
        }
        let winners = Set(newest.values)
        for index in keep {
            if !winners.contains(index) {
                entries[index].status = "superseded"
            } else if let next = crls[index].nextUpdate, next < date {
                entries[index].status = "outdated"
            }
        }
        report.crls = entries
        retainCRLs(at: keep)
    }

    private mutating func finishReport(at date: Date) {
        report.loadedAt = UTCDate.iso8601(date)
        let horizon = date.addingTimeInterval(Double(TrustStoreReport.expiryHorizonDays) * 86_400)
        report.expiringCSCAs = anchors.filter { $0.certificate.notAfter >= date && $0.certificate.notAfter < horizon }
            .sorted { $0.certificate.notAfter < $1.certificate.notAfter }
            .map { .init(subject: $0.certificate.subject.description, country: $0.certificate.subject.country ?? "??",
                         notAfter: UTCDate.iso8601($0.certificate.notAfter)) }
        for expiring in report.expiringCSCAs {
            report.warnings.append("cscaExpiringSoon: \(expiring.subject) expires \(expiring.notAfter.prefix(10))")
        }
        let outdated = report.crls.filter { $0.status == "outdated" }
        report.crlsPastNextUpdate = outdated.count
        for crl in outdated {
            report.warnings.append("crlOutdated: \(crl.path) (\(crl.issuer)) nextUpdate \(crl.nextUpdate?.prefix(10) ?? "")")
        }
        report.nextCRLUpdate = report.crls.filter { $0.status == "current" || $0.status == "outdated" }.compactMap(\.nextUpdate).min()
        report.errors = report.rejected.map { "\($0.path): \($0.reason)" }
        if anchors.isEmpty { report.errors.append("no CSCA loaded") }
        report.cscaCount = anchors.count
        report.documentSignerCount = documentSigners.count
        report.crlCount = crls.count
        report.containsTestMaterial = anchors.contains { $0.isTestMaterial }
        var byCountry: [String: (count: Int, expired: Int, latest: Date)] = [:]
        for anchor in anchors {
            let country = anchor.certificate.subject.country ?? "??"
            var value = byCountry[country] ?? (0, 0, .distantPast)
            value.count += 1
            if anchor.certificate.notAfter < date { value.expired += 1 }
            value.latest = max(value.latest, anchor.certificate.notAfter)
            byCountry[country] = value
        }
        report.countries = byCountry.keys.sorted().map { key in
            let value = byCountry[key]!
            return .init(country: key, cscas: value.count, expired: value.expired, latestExpiry: UTCDate.iso8601(value.latest))
        }
    }

    /// `SEQUENCE { OBJECT IDENTIFIER, … }`: a CMS ContentInfo (certificates and CRLs start with a SEQUENCE).
    static func looksLikeContentInfo(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > 4, bytes[0] == 0x30 else { return false }
        let lengthByte = bytes[1]
        let header = lengthByte == 0x80 ? 2 : lengthByte & 0x80 == 0 ? 2 : 2 + Int(lengthByte & 0x7F)
        return header < bytes.count && bytes[header] == 0x06
    }

    /// Regular files under `path` (itself when it is a file), sorted, skipping documentation,
    /// hidden files and private keys.
    static func files(at path: String, writer: UInt32?, rejected: inout [TrustStoreReport.Rejection]) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return [path] }  // the read says why
        var out: [String] = []
        var directories = [path]
        var visited: Set<String> = []
        while let directory = directories.popLast() {
            // A directory reached twice (through a link) is searched once.
            guard let real = try? FileProvenance.resolve(directory), visited.insert(real).inserted else { continue }
            if let problem = FileProvenance.problem(ofPath: real, writer: writer) {
                rejected.append(.init(path: directory, reason: "directory \(problem): nothing in it is loaded"))
                continue
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                rejected.append(.init(path: directory, reason: "directory unreadable"))
                continue
            }
            for name in names where !isSkipped(name) {
                let full = PathString.join(directory, name)
                var entry = stat()
                guard lstat(full, &entry) == 0 else { continue }
                var target = stat()
                let isDirectory = entry.st_mode & S_IFMT == S_IFDIR
                    || (entry.st_mode & S_IFMT == S_IFLNK && stat(full, &target) == 0 && target.st_mode & S_IFMT == S_IFDIR)
                if isDirectory { directories.append(full) } else { out.append(full) }  // a bad link: the read says why
            }
        }
        return out.sorted()
    }

    /// Not trust material by name: hidden files, READMEs and notes, private keys, images.
    private static func isSkipped(_ name: String) -> Bool {
        let lower = name.lowercased()
        return name.hasPrefix(".") || lower.hasPrefix("readme") || lower.hasSuffix(".md") || lower.hasSuffix(".txt")
            || lower.hasSuffix(".key.pem") || lower.hasSuffix(".key") || lower.hasSuffix(".jpg") || lower.hasSuffix(".jp2")
    }

    /// `certs/test` (the TEST-ONLY PKI): everything from there is flagged as test material.
    static func isTestPath(_ path: String) -> Bool {
        let standardized = PathString.standardized(path)
        return standardized.contains("certs/test/") || standardized.hasSuffix("certs/test")
    }
}

extension Certificate {
    /// A CA certificate: basicConstraints cA, or keyUsage keyCertSign.
    var isCertificateAuthority: Bool { isCA || (keyUsage.map { $0 & 0x0020 != 0 } ?? false) }
}
