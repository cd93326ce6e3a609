import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDVerification
import SwiftASN1
import Testing

/// The terminal PKI of the plan's annex 8.1 (TEST ONLY, generated per run): a CVCA `DETESTCVCA000nn`
/// (self-signed: the annex prints the CAR as `DETESTCVCADE000nn`, a typo, see CONFIG.md), a domestic
/// DV `DETESTDVDE000nn` and an IS `DETESTISDE000nn` under it, dates relative to dCVCAeff.
enum AnnexEAC {
    static let day: TimeInterval = 86400
    /// dCVCAeff: two days ago, so that today's reader finds the chain valid (IS certificates are valid
    /// 14 days, DV and CVCA one month).
    static let effectiveDay = Date(timeIntervalSinceNow: -2 * day)
    static func date(_ days: Int) -> CVDate { CVDate(effectiveDay.addingTimeInterval(TimeInterval(days) * day)) }
    static var effective: CVDate { date(0) }

    static let ta: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 2]
    static func oid(_ family: UInt, _ digest: UInt) -> ASN1ObjectIdentifier { ta.appending(family, digest) }

    /// A chain under the CVCA `cvca` (CHR) with `algorithm`; RSA keys of `rsaBits`, EC keys on
    /// brainpoolP256r1. `dvRights` is the DV's CHAT byte (role and DG3/DG4 bits).
    static func chain(
        cvca: String, algorithm: ASN1ObjectIdentifier, rsaBits: Int? = nil, dvRights: UInt8 = 0x83, number: String? = nil,
        corruptDV: Bool = false, corruptIS: Bool = false
    ) throws -> EACTestSet {
        func key() throws -> PrivateKey {
            if let rsaBits { return try PrivateKey.generate(.rsa(bits: rsaBits)) }
            return try PrivateKey.generate(.ec(curve: "brainpoolP256r1", explicitParameters: true))
        }
        let suffix = number ?? String(cvca.suffix(5))
        let cvcaKey = try key(), dvKey = try key(), isKey = try key()
        let dvName = "DETESTDVDE\(suffix)", isName = "DETESTISDE\(suffix)"
        let cvcaCert = try CVCertificateBuilder(
            authorityReference: cvca, holderReference: cvca, algorithmOID: algorithm, holderKey: cvcaKey,
            includeDomainParameters: true, accessRights: EACTestSet.cvcaRole | 0x03, effectiveDate: date(0), expirationDate: date(30)
        ).build(issuerKey: cvcaKey, issuerAlgorithmOID: algorithm)
        var dv = CVCertificateBuilder(
            authorityReference: cvca, holderReference: dvName, algorithmOID: algorithm, holderKey: dvKey,
            includeDomainParameters: false, accessRights: dvRights, effectiveDate: date(0), expirationDate: date(30))
        dv.corruptSignature = corruptDV
        var inspectionSystem = CVCertificateBuilder(
            authorityReference: dvName, holderReference: isName, algorithmOID: algorithm, holderKey: isKey,
            includeDomainParameters: false, accessRights: EACTestSet.isRole | 0x03, effectiveDate: date(0), expirationDate: date(14))
        inspectionSystem.corruptSignature = corruptIS
        return EACTestSet(
            cvcaKey: cvcaKey, dvKey: dvKey, isKey: isKey, cvca: cvcaCert,
            dv: try dv.build(issuerKey: cvcaKey, issuerAlgorithmOID: algorithm),
            inspectionSystem: try inspectionSystem.build(issuerKey: dvKey, issuerAlgorithmOID: algorithm), algorithmOID: algorithm)
    }

    /// The chip of `document` (CFG.DFLT.EAC unless given) trusting only `set`'s CVCA at `chipDate`, with
    /// `efCVCA` (the trust point's CHR unless given).
    static func chip(
        trusting set: EACTestSet, efCVCA: [UInt8]? = nil, chipDate: CVDate? = nil, document: SimulatedDocument? = nil
    ) throws -> VirtualChipConfiguration {
        var chip = try (document ?? ConformanceProfile.eac.document()).chip()
        let eac = VirtualEAC(trustPoints: [set.cvca], currentDate: chipDate ?? effective)
        chip.files[.cvca] = efCVCA ?? eac.efCVCA
        chip.eac = eac
        return chip
    }

    /// The operator's options with DG3 and DG4 asked for and `credentials` as the terminal directory.
    static func options(_ credentials: TerminalCredentials?, dataGroups: [Int] = [1, 2, 3, 4, 14]) throws -> ReadOptions {
        var options = try Conformance.options(dataGroups: dataGroups)
        options.terminal = credentials
        return options
    }

    /// The TA commands (MSE:Set DST, PSO:Verify Certificate, MSE:Set AT, GET CHALLENGE, EXTERNAL
    /// AUTHENTICATE) from the first MSE:Set DST on, by INS P1 P2 (the header travels in clear under SM).
    static func terminalAuthenticationCommands(_ outcome: Conformance.Outcome) -> [String] {
        let names: [[UInt8]: String] = [
            [0x22, 0x81, 0xB6]: "DST", [0x2A, 0x00, 0xBE]: "PSO", [0x22, 0x81, 0xA4]: "AT",
            [0x84, 0x00, 0x00]: "CHALLENGE", [0x82, 0x00, 0x00]: "EXTAUTH",
        ]
        let headers = outcome.commands.filter { $0.count >= 4 }.map { Array($0[1...3]) }
        guard let first = headers.firstIndex(of: [0x22, 0x81, 0xB6]) else { return [] }
        return headers[first...].compactMap { names[$0] }
    }

    static let fullSequence = ["DST", "PSO", "DST", "PSO", "AT", "CHALLENGE", "EXTAUTH"]

    /// "Inspection procedure successful": valid, PA and CA passed, TA passed over `chain` with the
    /// scheme of `algorithm`, the data groups of `read` read and nothing skipped.
    static func expectSuccessful(
        _ outcome: Conformance.Outcome, chain: [String], algorithm: ASN1ObjectIdentifier, read groups: [Int] = [3, 4],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = outcome.result
        Conformance.expectStatus(result, .valid, "\(result.status) \(String(describing: result.error))", sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(result.checks.chipAuthentication.result == .passed, "\(result.checks.chipAuthentication)", sourceLocation: sourceLocation)
        let ta = result.checks.terminalAuthentication
        #expect(ta?.result == .passed, "\(String(describing: ta))", sourceLocation: sourceLocation)
        #expect(ta?.chain == chain, sourceLocation: sourceLocation)
        #expect(ta?.algorithm == TerminalAuthenticationAlgorithm(oid: algorithm)?.scheme.description, sourceLocation: sourceLocation)
        for n in groups { #expect(outcome.read.files[.dg(n)] != nil, "DG\(n) not read", sourceLocation: sourceLocation) }
        #expect(result.dataGroupsSkipped.isEmpty, "\(result.dataGroupsSkipped)", sourceLocation: sourceLocation)
        #expect(terminalAuthenticationCommands(outcome) == fullSequence, sourceLocation: sourceLocation)
    }

    /// The overall status a failed TA gives, by who failed (docs/verification.md): the chip refused
    /// or its EF.CVCA is wrong: `invalid` (the plan's "inspection failed"); the terminal lacks a valid
    /// chain or key for this chip: `unverified` (TR-03135-1 Table 5.21: undetermined; the inspection
    /// asked for is incomplete, never `valid`); the terminal is authorised for none of the groups
    /// asked for: `valid` (ISO7816_E_16: successful, DG3/DG4 not shown).
    static func expectedStatus(_ reason: TerminalAuthenticationFailure) -> ReadResult.Status {
        switch reason {
        case .rightsExcludeDataGroups: .valid
        case .trustPointUnknown, .dvNotUnderTrustPoint, .certificateExpired, .certificateNotYetValid, .roleInvalid, .keyUnavailable:
            .unverified
        case .certificateSignatureInvalid, .certificateRejected, .signatureRejected, .efCVCAInvalid: .invalid
        }
    }

    /// "Inspection failed" for TA: the check failed with `reason`, the overall status is
    /// ``expectedStatus(_:)``'s, DG3 and DG4 neither read nor released (skipped, 6982), and the
    /// inspection system went on (no read error, DG1 and PA there).
    static func expectTerminalAuthenticationFailed(
        _ outcome: Conformance.Outcome, _ reason: TerminalAuthenticationFailure, detail: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = outcome.result
        Conformance.expectStatus(result, expectedStatus(reason), "\(result.status) \(result.warnings)", sourceLocation: sourceLocation)
        let ta = result.checks.terminalAuthentication
        #expect(ta?.result == .failed, "\(String(describing: ta))", sourceLocation: sourceLocation)
        #expect(ta?.reason == reason.code, "\(String(describing: ta))", sourceLocation: sourceLocation)
        if let detail { #expect(ta?.detail?.contains(detail) == true, "\(String(describing: ta?.detail))", sourceLocation: sourceLocation) }
        for n in [3, 4] {
            #expect(outcome.read.files[.dg(n)] == nil, sourceLocation: sourceLocation)
            #expect(result.dataGroupsSkipped.contains(.init(file: "DG\(n)", reason: "securityStatusNotSatisfied")),
                    "\(result.dataGroupsSkipped)", sourceLocation: sourceLocation)
        }
        #expect(result.error == nil && outcome.read.files[.dg(1)] != nil, sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
    }

    /// Both chains as one terminal directory.
    static func credentials(_ sets: EACTestSet...) -> TerminalCredentials {
        let all = sets.map { $0.credentials() }
        return TerminalCredentials(certificates: all.flatMap(\.certificates), terminals: all.flatMap(\.terminals))
    }
}

/// BSI TR-03105 Part 5.1, unit ISO7816_E (section 5.5): EAC Terminal Authentication. The chip is
/// CFG.DFLT.EAC with the trust point, EF.CVCA and chain each case prescribes (annex 8.1's PKI,
/// generated per run); the inspection system reads DG1, DG2, DG3, DG4 and DG14 with its terminal
/// directory. E_31 to E_34 (TA after PACE, link certificates) are in another suite's file.
@Suite(.statusAsserted) struct ISO7816_E {
    /// A case of the algorithm table: EF.CVCA names `DETESTCVCA000nn`, the chip's one trust point,
    /// whose key and chain use `algorithm`: TA passes with that scheme and DG3/DG4 are read.
    static func algorithmCase(
        _ number: String, _ algorithm: ASN1ObjectIdentifier, rsaBits: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let cvca = "DETESTCVCA\(number)"
        let set = try AnnexEAC.chain(cvca: cvca, algorithm: algorithm, rsaBits: rsaBits)
        let chip = try AnnexEAC.chip(trusting: set)
        #expect(chip.files[.cvca].map { try? TerminalAuthentication.trustPoints(efCVCA: $0) } == [cvca], sourceLocation: sourceLocation)
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectSuccessful(
            outcome, chain: [cvca, "DETESTDVDE\(number)", "DETESTISDE\(number)"], algorithm: algorithm, sourceLocation: sourceLocation)
    }

    /// 5.5.1: trust point id-TA-RSA-v1-5-SHA-1, RSA 1024, DETESTCVCA00003: inspection successful.
    @Test func ISO7816_E_01() async throws { try await Self.algorithmCase("00003", AnnexEAC.oid(1, 1), rsaBits: 1024) }

    /// 5.5.2: id-TA-RSA-v1-5-SHA-256, RSA 1024, DETESTCVCA00004: successful.
    @Test func ISO7816_E_02() async throws { try await Self.algorithmCase("00004", AnnexEAC.oid(1, 2), rsaBits: 1024) }

    /// 5.5.3: id-TA-RSA-PSS-SHA-1, RSA 1024, DETESTCVCA00005: successful.
    @Test func ISO7816_E_03() async throws { try await Self.algorithmCase("00005", AnnexEAC.oid(1, 3), rsaBits: 1024) }

    /// 5.5.4: id-TA-RSA-PSS-SHA-256, RSA 1024, DETESTCVCA00006: successful.
    @Test func ISO7816_E_04() async throws { try await Self.algorithmCase("00006", AnnexEAC.oid(1, 4), rsaBits: 1024) }

    /// 5.5.5: id-TA-ECDSA-SHA-1, EC 256, DETESTCVCA00007: successful.
    @Test func ISO7816_E_05() async throws { try await Self.algorithmCase("00007", AnnexEAC.oid(2, 1)) }

    /// 5.5.6: id-TA-ECDSA-SHA-224, EC 256, DETESTCVCA00008: successful.
    @Test func ISO7816_E_06() async throws { try await Self.algorithmCase("00008", AnnexEAC.oid(2, 2)) }

    /// 5.5.7: the unmodified CFG.DFLT.EAC (ECDSA-SHA-256, EC 256) with the operator's terminal
    /// directory (the run's simulation EAC PKI): successful.
    @Test func ISO7816_E_07() async throws {
        let outcome = try await Conformance.read(.eac, Conformance.options(dataGroups: [1, 2, 3, 4, 14], terminal: true))
        let pki = try SimulationPKI.eac()
        AnnexEAC.expectSuccessful(
            outcome, chain: [pki.cvca.holderReference, pki.dv.holderReference, pki.inspectionSystem.holderReference],
            algorithm: AnnexEAC.oid(2, 3))
    }

    /// 5.5.8: EF.CVCA names DETESTCVCA00002, the chip trusts only DETESTCVCA00001. The inspection
    /// system holds chains for both; it starts at the CAR the chip announced, the chip refuses MSE:Set
    /// DST (6A88): TA failed (`terminalCertificateRejectedByChip`), no EXTERNAL AUTHENTICATE.
    @Test func ISO7816_E_08() async throws {
        let trusted = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        let announced = try AnnexEAC.chain(cvca: "DETESTCVCA00002", algorithm: AnnexEAC.oid(2, 3))
        let chip = try AnnexEAC.chip(trusting: trusted, efCVCA: TerminalAuthentication.efCVCA(trustPoints: ["DETESTCVCA00002"]))
        let outcome = await Conformance.read(chip, try AnnexEAC.options(AnnexEAC.credentials(trusted, announced)))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .certificateRejected, detail: "DETESTCVCA00002")
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome) == ["DST"])
    }

    /// 5.5.9: EF.CVCA is `42 00 00 00 00` (no CAR): TA failed (`terminalEFCVCAInvalid`) without a
    /// command to the chip, and the read goes on.
    @Test func ISO7816_E_09() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        let chip = try AnnexEAC.chip(trusting: set, efCVCA: [0x42, 0x00, 0x00, 0x00, 0x00])
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .efCVCAInvalid)
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome).isEmpty)
    }

    /// 5.5.10: EF.CVCA with three CARs (DECV00001..3), the chip trusts DECV00001 and the inspection
    /// system holds its chain. The plan accepts either outcome as long as the system stays
    /// operational; the product keeps TR-03110-3 §A.6.2.1 (at most two CARs): TA failed
    /// (`terminalEFCVCAInvalid`, "3 trust points"), so the inspection asked for failed: `invalid`;
    /// the read completes (DG2 there, PA passed).
    @Test func ISO7816_E_10() async throws {
        let set = try AnnexEAC.chain(cvca: "DECV00001", algorithm: AnnexEAC.oid(2, 3))
        let efCVCA = TerminalAuthentication.efCVCA(trustPoints: ["DECV00001", "DECV00002", "DECV00003"])
        #expect(efCVCA.count == 36)
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set, efCVCA: efCVCA), try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .efCVCAInvalid, detail: "3 trust points")
        #expect(outcome.read.files[.dg(2)] != nil)
    }

    /// 5.5.11: the chip checks the TA signature against another document number (M… instead of the
    /// MRZ's): EXTERNAL AUTHENTICATE is refused, TA failed (`terminalSignatureRejectedByChip`).
    @Test func ISO7816_E_11() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        var chip = try AnnexEAC.chip(trusting: set)
        var wrong = TerminalAuthentication.chipIdentifier(mrz: Conformance.mrzKey)
        wrong[0] = wrong[0] == UInt8(ascii: "M") ? UInt8(ascii: "C") : UInt8(ascii: "M")
        chip.eac?.chipIdentifierOverride = wrong
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .signatureRejected, detail: "EXTERNAL AUTHENTICATE")
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome) == AnnexEAC.fullSequence)
    }

    /// The TA challenge is `length` bytes (BAC's stays 8): TA failed before signing.
    static func challengeCase(_ length: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        var chip = try AnnexEAC.chip(trusting: set)
        chip.eac?.challengeLength = length
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(
            outcome, .signatureRejected, detail: "GET CHALLENGE answered \(length) bytes", sourceLocation: sourceLocation)
        // Nothing signed: no EXTERNAL AUTHENTICATE after the challenge.
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome) == ["DST", "PSO", "DST", "PSO", "AT", "CHALLENGE"],
                sourceLocation: sourceLocation)
    }

    /// 5.5.12: the TA GET CHALLENGE answers 7 bytes: TA failed, the system neither pads nor signs.
    @Test func ISO7816_E_12() async throws { try await Self.challengeCase(7) }

    /// 5.5.13: the TA GET CHALLENGE answers 9 bytes: TA failed.
    @Test func ISO7816_E_13() async throws { try await Self.challengeCase(9) }

    /// A DV certificate with CHAT `dvRights`: TA passes, the groups it grants are read, the others skipped.
    static func rightsCase(dvRights: UInt8, read: [Int], withheld: [Int], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3), dvRights: dvRights, number: "00011")
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set), try AnnexEAC.options(set.credentials()))
        let result = outcome.result
        Conformance.expectStatus(result, .valid, sourceLocation: sourceLocation)
        #expect(result.checks.chipAuthentication.result == .passed, sourceLocation: sourceLocation)
        let ta = result.checks.terminalAuthentication
        #expect(ta?.result == .passed, "\(String(describing: ta))", sourceLocation: sourceLocation)
        #expect(ta?.grantedDataGroups == read, sourceLocation: sourceLocation)
        for n in read { #expect(outcome.read.files[.dg(n)] != nil, sourceLocation: sourceLocation) }
        for n in withheld { #expect(outcome.read.files[.dg(n)] == nil, sourceLocation: sourceLocation) }
        #expect(result.dataGroupsSkipped == withheld.map { .init(file: "DG\($0)", reason: "securityStatusNotSatisfied") },
                sourceLocation: sourceLocation)
    }

    /// 5.5.14: DV_Cert_11 grants DG4 only: inspection successful, no fingerprints (DG3 skipped, 6982).
    @Test func ISO7816_E_14() async throws { try await Self.rightsCase(dvRights: 0x82, read: [4], withheld: [3]) }

    /// 5.5.15: DV_Cert_12 grants DG3 only: successful, no iris (DG4 skipped).
    @Test func ISO7816_E_15() async throws { try await Self.rightsCase(dvRights: 0x81, read: [3], withheld: [4]) }

    /// 5.5.16: DV_Cert_13 grants neither: inspection successful (valid, PA and CA passed), neither
    /// group read. The system knows the chain grants nothing asked for and does not run TA
    /// (`terminalRightsExcludeDataGroups`, no TA command); DG3 and DG4 end skipped.
    @Test func ISO7816_E_16() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3), dvRights: 0x80, number: "00013")
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set), try AnnexEAC.options(set.credentials()))
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.chipAuthentication.result == .passed)
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .rightsExcludeDataGroups)
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome).isEmpty)
    }

    /// 5.5.17: DV_Cert_14's signature is damaged: TA failed (`terminalCertificateSignatureInvalid`:
    /// the system checks the chain against the CVCA before presenting it), DG3/DG4 not read.
    @Test func ISO7816_E_17() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3), number: "00014", corruptDV: true)
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set), try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .certificateSignatureInvalid, detail: "DETESTDVDE00014")
        #expect(!AnnexEAC.terminalAuthenticationCommands(outcome).contains("EXTAUTH"))
    }

    /// 5.5.18: IS_Cert_11's signature is damaged: TA failed (`terminalCertificateSignatureInvalid`).
    @Test func ISO7816_E_18() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3), number: "00011", corruptIS: true)
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set), try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .certificateSignatureInvalid, detail: "DETESTISDE00011")
        #expect(!AnnexEAC.terminalAuthenticationCommands(outcome).contains("EXTAUTH"))
    }

    /// 5.5.19: the chip's date is dCVCAeff + 15 days, past the IS certificate (14 days): the chip
    /// refuses it (PSO:Verify Certificate 6300), TA failed (`terminalCertificateRejectedByChip`).
    @Test func ISO7816_E_19() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        let chip = try AnnexEAC.chip(trusting: set, chipDate: AnnexEAC.date(15))
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .certificateRejected, detail: "DETESTISDE00001")
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome) == ["DST", "PSO", "DST", "PSO"])
    }

    /// DG14 of CFG.DFLT.EAC with a TerminalAuthenticationInfo (version 1) whose efCVCA is `fileID`.
    static func dg14(withTerminalAuthenticationFileID fileID: [UInt8]) throws -> SimulatedDocument {
        var document = try ConformanceProfile.eac.document()
        let dg14 = try #require(document.authentication?.dg14)
        let set = try TLV.parse(try TLV.parse(dg14, expecting: 0x6E).value, expecting: 0x31)
        let info = TLV.encode(tag: 0x30, children: [
            TLV.encode(tag: 0x06, value: AnnexEAC.ta.contentOctets), TLV.encode(tag: 0x02, value: [0x01]),
            TLV.encode(tag: 0x30, value: fileID),
        ])
        let infos = (try set.children().map(\.encoded) + [info]).sorted { $0.lexicographicallyPrecedes($1) }
        document.authentication?.dg14 = TLV.encode(tag: 0x6E, value: TLV.encode(tag: 0x31, value: infos.flatMap { $0 }))
        return document
    }

    /// DG14 names EF.CVCA at `fileID`: TA failed (`terminalEFCVCAInvalid`) before any TA command,
    /// the inspection failed (`invalid`) although PA passed (the SOD covers the modified DG14).
    static func fileIDCase(_ fileID: [UInt8], detail: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        let chip = try AnnexEAC.chip(trusting: set, document: try dg14(withTerminalAuthenticationFileID: fileID))
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials()))
        #expect(outcome.result.checks.chipAuthentication.result == .passed, sourceLocation: sourceLocation)
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .efCVCAInvalid, detail: detail, sourceLocation: sourceLocation)
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome).isEmpty, sourceLocation: sourceLocation)
    }

    /// 5.5.22: DG14's TerminalAuthenticationInfo places EF.CVCA at FID 011D (the LDS fixes 011C):
    /// inspection failed — TA is not run on a guess (`terminalEFCVCAInvalid`).
    @Test func ISO7816_E_22() async throws {
        try await Self.fileIDCase(TLV.encode(tag: 0x04, value: [0x01, 0x1D]) + TLV.encode(tag: 0x04, value: [0x1C]), detail: "FID 011D")
    }

    /// 5.5.23: the same with the right FID and SFI 1D (the LDS fixes 1C): inspection failed.
    @Test func ISO7816_E_23() async throws {
        try await Self.fileIDCase(TLV.encode(tag: 0x04, value: [0x01, 0x1C]) + TLV.encode(tag: 0x04, value: [0x1D]), detail: "SFI 1D")
    }

    /// 5.5.24: the inspection system has no chain for DETESTCVCA00001 (only the run's simulation
    /// PKI): TA failed (`terminalTrustPointUnknown`) with no TA command, DG3/DG4 skipped, no hang.
    @Test func ISO7816_E_24() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set), try AnnexEAC.options(SimulationPKI.eac().credentials()))
        AnnexEAC.expectTerminalAuthenticationFailed(outcome, .trustPointUnknown, detail: "DETESTCVCA00001")
        #expect(AnnexEAC.terminalAuthenticationCommands(outcome).isEmpty)
    }

    /// 5.5.26: DG11 and DG12 added (EF.COM and SOD list them), both readable only after TA: the
    /// system reads them after TA; inspection successful with every group read. Without a terminal
    /// the chip refuses them (the configuration is what the case says).
    @Test func ISO7816_E_26() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        var document = try ConformanceProfile.eac.document()
        document.extraDataGroups = SpecimenDocument.additionalDataGroups().filter { $0.key == 11 || $0.key == 12 }
        #expect(document.extraDataGroups.count == 2)
        var chip = try AnnexEAC.chip(trusting: set, document: document)
        chip.eac?.protectedDataGroups = [11, 12]
        #expect(try EFCOM(rawBytes: try #require(chip.files[.com])).dataGroups.contains(.dg(12)))
        let groups = [1, 2, 3, 4, 11, 12, 14]
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials(), dataGroups: groups))
        AnnexEAC.expectSuccessful(
            outcome, chain: ["DETESTCVCA00001", "DETESTDVDE00001", "DETESTISDE00001"], algorithm: AnnexEAC.oid(2, 3),
            read: [3, 4, 11, 12])
        #expect(outcome.result.personalDetails != nil)
        let without = await Conformance.read(chip, try AnnexEAC.options(nil, dataGroups: groups))
        // No terminal configured: TA was not asked for, the groups behind it are skipped, the
        // document is what PA says.
        Conformance.expectStatus(without.result, .valid)
        #expect(without.result.dataGroupsSkipped.map(\.file) == ["DG3", "DG4", "DG11", "DG12"])
    }

    /// 5.5.27: CA with DH 2048 (RFC 5114 2048/256, 3DES, implicit key) and TA with the RSA chain of
    /// CVCA_Cert_03 (RSA-v1.5-SHA-1, 1024): successful; MSE:Set KAT carries the 256-byte DH key in
    /// an extended-length APDU.
    @Test func ISO7816_E_27() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00003", algorithm: AnnexEAC.oid(1, 1), rsaBits: 1024)
        var document = try ConformanceProfile.eac.document()
        document.authentication = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 2, cipher: .tripleDES)])
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set, document: document), try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectSuccessful(
            outcome, chain: ["DETESTCVCA00003", "DETESTDVDE00003", "DETESTISDE00003"], algorithm: AnnexEAC.oid(1, 1))
        let kat = outcome.commands.filter { $0.count > 4 && $0[1] == 0x22 && $0[2] == 0x41 && $0[3] == 0xA6 }
        #expect(kat.count == 1)
        #expect(kat.first.map { $0.count > 261 && $0[4] == 0x00 } == true, "MSE:Set KAT not extended")
    }

    /// 5.5.28: CA with ECDH on a 224-bit curve (brainpoolP224r1, 3DES, implicit key) and TA
    /// ECDSA-SHA-256 on a 256-bit key: successful.
    @Test func ISO7816_E_28() async throws {
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3))
        var document = try ConformanceProfile.eac.document()
        document.authentication = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 11, cipher: .tripleDES)])
        let outcome = await Conformance.read(try AnnexEAC.chip(trusting: set, document: document), try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectSuccessful(
            outcome, chain: ["DETESTCVCA00001", "DETESTDVDE00001", "DETESTISDE00001"], algorithm: AnnexEAC.oid(2, 3))
        #expect(outcome.commands(ins: 0x22).contains { $0.count > 3 && $0[2] == 0x41 && $0[3] == 0xA6 })
    }

    /// Only `present` of DG3/DG4 on the chip (EF.COM and SOD without the other), a DV granting just
    /// it: successful, the group read, the absent one neither asked for nor reported missing.
    static func presenceCase(present: Int, dvRights: UInt8, number: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let absent = present == 3 ? 4 : 3
        let set = try AnnexEAC.chain(cvca: "DETESTCVCA00001", algorithm: AnnexEAC.oid(2, 3), dvRights: dvRights, number: number)
        var document = try ConformanceProfile.eac.document()
        document.omittedDataGroups = [absent]
        let chip = try AnnexEAC.chip(trusting: set, document: document)
        #expect(chip.files[.dg(absent)] == nil, sourceLocation: sourceLocation)
        let outcome = await Conformance.read(chip, try AnnexEAC.options(set.credentials()))
        AnnexEAC.expectSuccessful(
            outcome, chain: ["DETESTCVCA00001", "DETESTDVDE\(number)", "DETESTISDE\(number)"], algorithm: AnnexEAC.oid(2, 3),
            read: [present], sourceLocation: sourceLocation)
        #expect(outcome.result.checks.terminalAuthentication?.grantedDataGroups == [present], sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(absent)] == nil, sourceLocation: sourceLocation)
    }

    /// 5.5.29: DG3 present, DG4 absent, DV_Cert_12 (DG3 only): successful, fingerprints read.
    @Test func ISO7816_E_29() async throws { try await Self.presenceCase(present: 3, dvRights: 0x81, number: "00012") }

    /// 5.5.30: DG4 present, DG3 absent, DV_Cert_11 (DG4 only): successful, iris read.
    @Test func ISO7816_E_30() async throws { try await Self.presenceCase(present: 4, dvRights: 0x82, number: "00011") }

    /// 5.5.35: id-TA-RSA-v1-5-SHA-512, RSA 1024, DETESTCVCA00009: successful.
    @Test func ISO7816_E_35() async throws { try await Self.algorithmCase("00009", AnnexEAC.oid(1, 5), rsaBits: 1024) }

    /// 5.5.36: id-TA-RSA-PSS-SHA-512, DETESTCVCA00010: successful. RSA 2048, not the printed 1024:
    /// PSS with SHA-512 and a 64-byte salt needs a modulus of at least 130 bytes (RFC 8017 §9.1.1).
    @Test func ISO7816_E_36() async throws { try await Self.algorithmCase("00010", AnnexEAC.oid(1, 6), rsaBits: 2048) }

    /// 5.5.37: id-TA-ECDSA-SHA-384, EC 256, DETESTCVCA00011: successful.
    @Test func ISO7816_E_37() async throws { try await Self.algorithmCase("00011", AnnexEAC.oid(2, 4)) }

    /// 5.5.38: id-TA-ECDSA-SHA-512, EC 256, DETESTCVCA00012: successful.
    @Test func ISO7816_E_38() async throws { try await Self.algorithmCase("00012", AnnexEAC.oid(2, 5)) }
}
