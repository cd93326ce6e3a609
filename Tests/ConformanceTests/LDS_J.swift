import MRTDCore
import MRTDProtocol
import MRTDSimulation
import Testing

/// TR-03105-5.1 §6.10, EF.CardSecurity. The inspection system reads EF.CardSecurity where it needs
/// it: PACE with Chip Authentication Mapping (Doc 9303-11 §4.4.3.5.2), whose chip key only
/// EF.CardSecurity holds; a BAC chip of CFG.DFLT.EAC has no EF.CardSecurity to read. So every case
/// runs on CFG.DFLT.PACE with the PACEInfo's mapping PACE-CAM (brainpoolP256r1, AES-128), its
/// EF.CardSecurity changed and signed again by the document signer (it stays authentic). A
/// CardSecurity that does not cover EF.CardAccess, or whose CAM key cannot be found, fails the
/// `chipAuthentication` check (PACE-CAM's) with a specific reason.
@Suite(.statusAsserted) struct LDS_J {
    static let camInfo = PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)

    /// The PACE-CAM chip with EF.CardSecurity's SecurityInfos edited by `edit`, re-signed.
    static func read(_ edit: (inout [[UInt8]]) throws -> Void) async throws -> Conformance.Outcome {
        var document = try ConformanceProfile.pace.document()
        document.paceInfos = [camInfo]
        var chip = try document.chip()
        var elements = try LDSFileEdits.cardSecurityElements(try #require(chip.files[.cardSecurity]))
        try edit(&elements)
        chip.files[.cardSecurity] = try LDSFileEdits.cardSecurity(elements)
        return await Conformance.read(chip, try Conformance.options())
    }

    static func isPACEInfo(_ element: [UInt8]) -> Bool {
        (try? LDSFileEdits.protocolOID(element))?.starts(with: [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x04]) == true
    }

    static func expectCAMFailed(_ outcome: Conformance.Outcome, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let r = outcome.result
        Conformance.expectStatus(r, .invalid, sourceLocation: sourceLocation)
        #expect(r.access?.mapping == "CAM", sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.result == .failed, "\(r.checks.chipAuthentication)", sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.reason == reason, "\(r.checks.chipAuthentication)", sourceLocation: sourceLocation)
        #expect(r.checks.passiveAuthentication.result == .passed, "EF.CardSecurity is signed", sourceLocation: sourceLocation)
    }

    /// §6.10.1, CFG.EAC.LDS.J01: EF.CardSecurity holds one SecurityInfo more than EF.CardAccess (a
    /// TerminalAuthenticationInfo): a superset is what it should be, inspection successful.
    @Test func LDS_J_01() async throws {
        let outcome = try await Self.read { elements in
            // TerminalAuthenticationInfo { id-TA, version 1 }
            elements.append([0x30, 0x0D, 0x06, 0x08, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x02, 0x02, 0x01, 0x01])
        }
        let r = outcome.result
        Conformance.expectStatus(r, .valid, "\(r.status) \(r.error?.message ?? "")")
        #expect(r.access?.mapping == "CAM")
        #expect(r.checks.chipAuthentication.result == .passed, "\(r.checks.chipAuthentication)")
        #expect(r.checks.passiveAuthentication.result == .passed)
        #expect(outcome.read.files[.cardSecurity] != nil)
    }

    /// §6.10.2, CFG.EAC.LDS.J02: EF.CardSecurity lacks the PACEInfo EF.CardAccess holds: what
    /// CardAccess offered is not signed, inspection failed (`cardSecurityInconsistent`).
    @Test func LDS_J_02() async throws {
        let outcome = try await Self.read { elements in
            #expect(elements.contains { Self.isPACEInfo($0) })
            elements.removeAll { Self.isPACEInfo($0) }
        }
        Self.expectCAMFailed(outcome, reason: "cardSecurityInconsistent")
    }

    /// §6.10.3, CFG.EAC.LDS.J03: as many SecurityInfos, but the PACEInfo's standardized domain
    /// parameter in EF.CardSecurity is 14 (brainpoolP320r1), not CardAccess's 13: inspection failed
    /// (`cardSecurityInconsistent`).
    @Test func LDS_J_03() async throws {
        let outcome = try await Self.read { elements in
            let index = try #require(elements.firstIndex { Self.isPACEInfo($0) })
            elements[index] = try LDSFileEdits.editElement(elements[index]) { children in
                let last = children.count - 1
                #expect(children[last] == TLV.encode(tag: 0x02, value: [13]))
                children[last] = TLV.encode(tag: 0x02, value: [14])
            }
        }
        Self.expectCAMFailed(outcome, reason: "cardSecurityInconsistent")
    }

    /// §6.10.4, CFG.EAC.LDS.J04 (CFG.DFLT.PACE, PACE-CAM): the ChipAuthenticationPublicKeyInfo in
    /// EF.CardSecurity without its protocol OID: the CAM key cannot be read, inspection failed
    /// (`cardSecurityMalformed`).
    @Test func LDS_J_04() async throws {
        let outcome = try await Self.read { elements in
            let index = try #require(elements.firstIndex { LDSFileEdits.isPublicKeyInfo($0) })
            elements[index] = try LDSFileEdits.editElement(elements[index]) { $0.removeFirst() }
        }
        Self.expectCAMFailed(outcome, reason: "cardSecurityMalformed")
    }
}
