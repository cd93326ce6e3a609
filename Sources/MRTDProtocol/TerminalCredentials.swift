import FoundationEssentials
import MRTDCore
import MRTDCrypto
public import MRTDVerification
import MRTDPlatform

/// Terminal credentials for EAC: CV certificates (CVCA link, DV, IS; several issuing countries) and,
/// for each IS certificate, its private key (a PKCS #8 file or an HSM key).
///
/// A directory holds `NAME.cvcert` files and, beside an IS certificate, `NAME.pkcs8` (the private key,
/// DER or PEM) or `NAME.pkcs11` (a PKCS #11 URI, RFC 7512, one line).
public struct TerminalCredentials: Sendable, Equatable {
    /// One IS certificate with its key.
    public struct Terminal: Sendable {
        public var certificate: CVCertificate
        public var key: any TerminalKey

        public init(certificate: CVCertificate, key: any TerminalKey) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// Every certificate (CVCA, link, DV, IS).
    public var certificates: [CVCertificate]
    /// The IS certificates that have a key.
    public var terminals: [Terminal]
    /// Problems that did not stop loading (an unreadable file), by file name; never key material.
    public var warnings: [String]

    public init(certificates: [CVCertificate], terminals: [Terminal], warnings: [String] = []) {
        self.certificates = certificates
        self.terminals = terminals
        self.warnings = warnings
    }

    public static func == (a: TerminalCredentials, b: TerminalCredentials) -> Bool {
        a.certificates == b.certificates && a.terminals.map(\.certificate) == b.terminals.map(\.certificate)
            && a.terminals.map(\.key.source) == b.terminals.map(\.key.source)
    }

    /// How PKCS #11 URIs in `NAME.pkcs11` become keys; `nil` makes such files a warning.
    public typealias PKCS11Loader = @Sendable (_ uri: String) throws -> any TerminalKey

    /// Loads a terminal directory.
    /// - Throws: `TerminalCredentialsError` when the directory cannot be read or holds no usable terminal.
    public static func load(
        directory: String, pkcs11: PKCS11Loader? = { try PKCS11TerminalKey(uri: $0) }
    ) throws -> TerminalCredentials {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        } catch {
            throw TerminalCredentialsError.unreadable(directory)
        }
        // Keys and the certificates that choose them: nothing another user can have put there.
        if let problem = FileProvenance.problem(ofPath: directory) { throw TerminalCredentialsError.untrusted(directory, problem) }
        func contents(_ file: URL) throws -> [UInt8] { try FileProvenance.read(file.path, limit: 1 << 20) }
        var certificates: [CVCertificate] = []
        var terminals: [Terminal] = []
        var warnings: [String] = []
        for name in names where name.hasSuffix(".cvcert") {
            let stem = String(name.dropLast(".cvcert".count))
            let certificate: CVCertificate
            do {
                certificate = try CVCertificate(rawBytes: try contents(url.appendingPathComponent(name)))
            } catch let error as FileContents.Failure {
                warnings.append("\(name): \(error.reason)")
                continue
            } catch {
                warnings.append("\(name): \(error)")
                continue
            }
            certificates.append(certificate)
            let keyFile = url.appendingPathComponent(stem + ".pkcs8")
            let uriFile = url.appendingPathComponent(stem + ".pkcs11")
            do {
                if FileManager.default.fileExists(atPath: keyFile.path) {
                    let bytes = try contents(keyFile)
                    let key: PrivateKey
                    if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN") {
                        key = try PrivateKey(pem: text)
                    } else {
                        key = try PrivateKey(der: bytes)
                    }
                    terminals.append(Terminal(certificate: certificate, key: FileTerminalKey(key: key)))
                } else if FileManager.default.fileExists(atPath: uriFile.path) {
                    guard let pkcs11 else {
                        warnings.append("\(stem).pkcs11: PKCS #11 keys are not available here")
                        continue
                    }
                    let uri = String(decoding: try contents(uriFile), as: UTF8.self).trimmingWhitespace()
                    terminals.append(Terminal(certificate: certificate, key: try pkcs11(uri)))
                }
            } catch let error as FileContents.Failure {
                warnings.append("\(PathString.lastComponent(error.path)): \(error.reason)")
            } catch {
                // The error names the file and the failing step, never key bytes or a PIN.
                warnings.append("\(stem): key not usable: \(type(of: error))")
            }
        }
        guard !terminals.isEmpty else { throw TerminalCredentialsError.noTerminal(directory, warnings) }
        return TerminalCredentials(certificates: certificates, terminals: terminals, warnings: warnings)
    }

    /// Chooses a chain for a chip whose EF.CVCA names `trustPoints`, granting at least one of
    /// `dataGroups` (3, 4), valid at `date`. Every signature the directory can check is checked.
    ///
    /// When no chain fits, the failure of the candidate that came closest (the most specific reason).
    public func chain(
        trustPoints: [String], dataGroups: [Int], date: CVDate
    ) -> Result<TerminalChain, ProtocolError> {
        var best: (rank: Int, failure: TerminalAuthenticationFailure, detail: String)?
        func fail(_ rank: Int, _ failure: TerminalAuthenticationFailure, _ detail: String) {
            if best == nil || rank > best!.rank { best = (rank, failure, detail) }
        }
        // A new CVCA has two certificates with its name: its self-signed one and the CVCA link
        // certificate its predecessor signed (TR-03110-3 §2.5). The walk up goes through issued
        // certificates (link, DV) to a trust point of EF.CVCA; a trust point's key comes from either.
        let byHolder = Dictionary(certificates.map { ($0.holderReference, $0) }, uniquingKeysWith: { a, _ in a })
        let issued = Dictionary(
            certificates.filter { $0.holderReference != $0.authorityReference }.map { ($0.holderReference, $0) },
            uniquingKeysWith: { a, _ in a })
        for terminal in terminals {
            let isCert = terminal.certificate
            // Walk issuer by issuer up to a trust point (at most a few link certificates).
            var path = [isCert]
            var current = isCert
            var reached: String?
            while path.count <= 8 {
                if trustPoints.contains(current.authorityReference) {
                    reached = current.authorityReference
                    break
                }
                guard let issuer = issued[current.authorityReference] else { break }
                path.insert(issuer, at: 0)
                current = issuer
            }
            guard let trustPoint = reached else {
                let known = trustPoints.contains { byHolder[$0] != nil }
                fail(known ? 1 : 0, known ? .dvNotUnderTrustPoint : .trustPointUnknown,
                     "\(isCert.holderReference) chains to \(current.authorityReference), the chip trusts \(trustPoints.joined(separator: ", "))")
                continue
            }
            // Signatures, issuer's key first; EC keys take the CVCA's domain parameters.
            var verifier = byHolder[trustPoint]
            var domain = verifier?.publicKey
            var signaturesValid = true
            for certificate in path {
                // Without the CVCA's domain parameters an EC key cannot be checked here; the chip checks.
                if let verifier, (try? verifier.publicKey.subjectPublicKeyInfo(domain: domain)) != nil,
                   !certificate.isSigned(by: verifier.publicKey, domain: domain) {
                    fail(3, .certificateSignatureInvalid, "\(certificate.holderReference) is not signed by \(verifier.holderReference)")
                    signaturesValid = false
                    break
                }
                if certificate.publicKey.hasDomainParameters { domain = certificate.publicKey }
                verifier = certificate
            }
            guard signaturesValid else { continue }
            if let expired = path.first(where: { $0.expirationDate < date }) {
                fail(4, .certificateExpired, "\(expired.holderReference) expired on \(expired.expirationDate)")
                continue
            }
            if let early = path.first(where: { $0.effectiveDate > date }) {
                fail(4, .certificateNotYetValid, "\(early.holderReference) is valid from \(early.effectiveDate)")
                continue
            }
            guard isCert.role == .terminal, isCert.terminalTypeOID == CVCertificate.inspectionSystemOID else {
                fail(2, .roleInvalid, "\(isCert.holderReference) is a \(isCert.role.rawValue) certificate for \(isCert.terminalTypeOID)")
                continue
            }
            // The effective rights are what every certificate of the chain grants (TR-03110-3 §C.4).
            let issuerRights = path.dropLast().filter { $0.terminalTypeOID == CVCertificate.inspectionSystemOID }
            let granted = dataGroups.filter { n in isCert.grants(dataGroup: n) && issuerRights.allSatisfy { $0.grants(dataGroup: n) } }
            guard !granted.isEmpty else {
                fail(5, .rightsExcludeDataGroups,
                     "the chain of \(isCert.holderReference) grants none of \(dataGroups.map { "DG\($0)" }.joined(separator: ", "))")
                continue
            }
            let presented = Array(path.drop { $0.holderReference == trustPoint })
            return .success(TerminalChain(trustPoint: trustPoint, certificates: presented, key: terminal.key, grantedDataGroups: granted))
        }
        let chosen = best ?? (0, .trustPointUnknown, "no IS certificate with a key")
        return .failure(.terminalAuthentication(chosen.failure, detail: chosen.detail))
    }
}

/// Why a terminal directory cannot be used.
public enum TerminalCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String)
    case noTerminal(String, [String])
    /// The directory belongs to another user or others may write it.
    case untrusted(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path): "terminal directory \(path) cannot be read"
        case .untrusted(let path, let problem): "terminal directory \(path) is \(problem): refused"
        case .noTerminal(let path, let warnings):
            "terminal directory \(path) holds no IS certificate with a usable key"
                + (warnings.isEmpty ? "" : " (" + warnings.joined(separator: "; ") + ")")
        }
    }
}
