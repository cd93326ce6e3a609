import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDVerification
import SwiftASN1
import Testing

/// TR-03105-5.1 §6.10, EF.CardSecurity, on the plan's configuration: CFG.DFLT.PACE (PACE GM,
/// brainpoolP256r1). The inspection system reads EF.CardSecurity after PACE with any mapping
/// (TR-03110-3 §A.1.2) and passive authentication checks that it signs the PACE parameters
/// EF.CardAccess offered: one missing or changed (J_02, J_03) fails it (`cardSecurityInvalid`),
/// `invalid`; a superset (J_01) is what it should be. J_04 breaks the Chip Authentication key info,
/// which only a PACE-CAM chip uses: it runs with a PACE-CAM PACEInfo, as the plan's J_04 has it.
/// EF.CardSecurity is changed and signed again by the document signer (its signature stays good).
@Suite(.statusAsserted) struct LDS_J {
    static let camInfo = PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)

    /// CFG.DFLT.PACE's chip (or with `paceInfos`), EF.CardAccess edited by `cardAccess` and
    /// EF.CardSecurity's SecurityInfos by `edit`, re-signed.
    static func read(
        paceInfos: [PACEInfo]? = nil, cardAccess: (inout [[UInt8]]) throws -> Void = { _ in },
        _ edit: (inout [[UInt8]]) throws -> Void
    ) async throws -> Conformance.Outcome {
        var document = try ConformanceProfile.pace.document()
        if let paceInfos { document.paceInfos = paceInfos }
        var chip = try document.chip()
        var access = try LDSFileEdits.elements(ofSet: try #require(chip.files[.cardAccess]))
        try cardAccess(&access)
        chip.files[.cardAccess] = TLV.encode(tag: 0x31, value: access.flatMap { $0 })
        var elements = try LDSFileEdits.cardSecurityElements(try #require(chip.files[.cardSecurity]))
        try edit(&elements)
        chip.files[.cardSecurity] = try LDSFileEdits.cardSecurity(elements)
        return await Conformance.read(chip, try Conformance.options())
    }

    /// "Inspection procedure failed": EF.CardSecurity verified, but it does not sign what
    /// EF.CardAccess offered: passive authentication failed (`cardSecurityInvalid`), `invalid`.
    static func expectNotSigned(_ outcome: Conformance.Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        let r = outcome.result
        SODCase.expectFailed(outcome, .cardSecurityInvalid, sourceLocation: sourceLocation)
        #expect(r.access?.protocol == "PACE" && r.access?.mapping == "GM", sourceLocation: sourceLocation)
        #expect(r.checks.passiveAuthentication.detail?.contains("does not sign EF.CardAccess") == true,
                "\(r.checks.passiveAuthentication.detail ?? "")", sourceLocation: sourceLocation)
        #expect(r.checks.passiveAuthentication.dataGroupHashes?["EF_CardSecurity"] == "invalid", sourceLocation: sourceLocation)
    }

    static func isPACEInfo(_ element: [UInt8]) -> Bool {
        (try? LDSFileEdits.protocolOID(element))?.starts(with: [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x04]) == true
    }

    static func isPACEDomainParameterInfo(_ element: [UInt8]) -> Bool {
        (try? LDSFileEdits.protocolOID(element))?.starts(with: [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x04]) == false
            && (try? TLV.parse(element, expecting: 0x30).children().count) == 3
            && (try? TLV.parse(element, expecting: 0x30).children()[1].tag) == 0x30
    }

    static func expectCAMFailed(_ outcome: Conformance.Outcome, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let r = outcome.result
        Conformance.expectStatus(r, .invalid, sourceLocation: sourceLocation)
        #expect(r.access?.mapping == "CAM", sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.result == .failed, "\(r.checks.chipAuthentication)", sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.reason == reason, "\(r.checks.chipAuthentication)", sourceLocation: sourceLocation)
    }

    /// §6.10.1, CFG.EAC.LDS.J01 (CFG.DFLT.PACE): EF.CardSecurity holds one SecurityInfo more than
    /// EF.CardAccess (a TerminalAuthenticationInfo): a superset is what it should be, inspection
    /// successful, EF.CardSecurity read and verified.
    @Test func LDS_J_01() async throws {
        let outcome = try await Self.read { elements in
            // TerminalAuthenticationInfo { id-TA, version 1 }
            elements.append([0x30, 0x0D, 0x06, 0x08, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x02, 0x02, 0x01, 0x01])
        }
        let r = outcome.result
        Conformance.expectStatus(r, .valid)
        #expect(r.access?.mapping == "GM")
        #expect(r.checks.passiveAuthentication.result == .passed)
        #expect(r.checks.passiveAuthentication.dataGroupHashes?["EF_CardSecurity"] == "valid")
        #expect(outcome.read.files[.cardSecurity] != nil)
    }

    /// §6.10.2, CFG.EAC.LDS.J02 (CFG.DFLT.PACE): EF.CardSecurity lacks the PACEInfo EF.CardAccess
    /// holds: what EF.CardAccess offered is not signed, inspection failed.
    @Test func LDS_J_02() async throws {
        let outcome = try await Self.read { elements in
            #expect(elements.contains { Self.isPACEInfo($0) })
            elements.removeAll { Self.isPACEInfo($0) }
        }
        Self.expectNotSigned(outcome)
    }

    /// §6.10.3, CFG.EAC.LDS.J03 (CFG.DFLT.PACE): as many SecurityInfos in both files, but the
    /// algorithm identifier of the PACEDomainParameterInfo's domain parameters differs in
    /// EF.CardSecurity. CFG.DFLT.PACE uses standardized parameters (no PACEDomainParameterInfo), so
    /// both files get one (standardized brainpoolP256r1 under the proprietary parameterId 32, which
    /// the PACEInfo does not use), and EF.CardSecurity's names id-ecPublicKey instead: inspection
    /// failed.
    @Test func LDS_J_03() async throws {
        let offered = PACEDomainParameterInfo(mapping: .gm, keyAgreement: .ecdh, domainParameter: .standardized(13), parameterID: 32)
        let changed = PACEDomainParameterInfo(
            mapping: .gm, keyAgreement: .ecdh,
            domainParameter: AlgorithmIdentifier(algorithm: [1, 2, 840, 10045, 2, 1], parameters: offered.domainParameter.parameters),
            parameterID: 32)
        let signed = changed.rawBytes
        #expect(signed != offered.rawBytes)
        let outcome = try await Self.read(cardAccess: { $0.append(offered.rawBytes) }) { elements in
            elements.append(signed)
        }
        let cardAccess = try #require(outcome.read.files[LDSFile.cardAccess])
        #expect(try SecurityInfos(derEncoded: cardAccess).paceDomainParameterInfos.count == 1)
        Self.expectNotSigned(outcome)
    }

    /// §6.10.4, CFG.EAC.LDS.J04 (CFG.DFLT.PACE, PACE-CAM): the ChipAuthenticationPublicKeyInfo in
    /// EF.CardSecurity without its protocol OID: the CAM key cannot be read, inspection failed
    /// (`cardSecurityMalformed`).
    @Test func LDS_J_04() async throws {
        let outcome = try await Self.read(paceInfos: [Self.camInfo]) { elements in
            let index = try #require(elements.firstIndex { LDSFileEdits.isPublicKeyInfo($0) })
            elements[index] = try LDSFileEdits.editElement(elements[index]) { $0.removeFirst() }
        }
        Self.expectCAMFailed(outcome, reason: "cardSecurityMalformed")
    }
}
