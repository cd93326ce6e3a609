import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import SwiftASN1
import Testing

/// BSI TR-03105-5.1 unit ISO7816_G, PACE (plan section 5.7). The plan keeps G_36 only; G_01..G_35 and
/// G_38..G_41 moved to ICAO-P4 with their titles: each test's comment gives the configuration and
/// the expected result we chose from the title, Doc 9303-11 §4.4 and ISO/IEC 7816-4
/// (notes/ISO7816_G.tsv says the same per case).
///
/// Unit rule in every case: the chip answers SELECT of the eMRTD application with 6982 until PACE
/// has succeeded (``VirtualPACEConformance/applicationNeedsPACE``), so a failed PACE cannot be
/// replaced by BAC: the read must end with the PACE error itself. Base set CFG.DFLT.PACE:
/// EF.CardAccess with one PACEInfo id-PACE-ECDH-GM-3DES-CBC-CBC, version 2, parameterId 13
/// (brainpoolP256r1); DG14 holds the SecurityInfos of EF.CardAccess and is hashed in the SOD.
@Suite(.statusAsserted) struct ISO7816_G {
    static func info(_ mapping: PACEMapping, _ agreement: KeyAgreementAlgorithm, _ cipher: SymmetricCipher, _ id: Int?) -> PACEInfo {
        PACEInfo(protocol: PACEProtocol(mapping: mapping, keyAgreement: agreement, cipher: cipher)!, parameterID: id)
    }

    /// CFG.DFLT.PACE's PACEInfo.
    static let gm3DES = info(.gm, .ecdh, .tripleDES, 13)
    static let can = "123456"

    /// The unit's chip: EF.CardAccess listing `infos` (and `domainParameterInfos`), DG14 (default: the
    /// SecurityInfos of EF.CardAccess) in a re-signed SOD, BAC keys present but the application
    /// refused until PACE has succeeded.
    static func chip(
        _ infos: [PACEInfo] = [gm3DES], domainParameterInfos: [PACEDomainParameterInfo] = [], dg14: [UInt8]? = nil,
        faults: Set<VirtualPACE.Fault> = [], conformance: (inout VirtualPACEConformance) -> Void = { _ in }
    ) throws -> VirtualChipConfiguration {
        let cardAccess = SecurityInfos(
            infos: infos.map { .pace($0) } + domainParameterInfos.map { .paceDomainParameters($0) })
        let document = try SpecimenDocument.make(
            mrz: ConformanceProfile.mrz, extraDataGroups: [14: dg14 ?? TLV.encode(tag: 0x6E, value: cardAccess.derEncoded())],
            signer: ConformanceProfile.signer())
        var chip = try VirtualChipConfiguration.paceChip(
            document: document, accessKey: Conformance.mrzKey, infos: infos, domainParameterInfos: domainParameterInfos,
            can: can, bac: true, faults: faults)
        chip.pace?.conformance.applicationNeedsPACE = true
        if var rules = chip.pace?.conformance {
            conformance(&rules)
            chip.pace?.conformance = rules
        }
        return chip
    }

    static func read(_ chip: VirtualChipConfiguration, key: AccessKey? = nil) async throws -> Conformance.Outcome {
        await Conformance.read(chip, try Conformance.options(dataGroups: [1, 2, 14], key: key))
    }

    /// The inspection procedure succeeded over PACE.
    static func expectSuccess(_ o: Conformance.Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(o.result.error == nil, "\(o.result.error?.message ?? "")", sourceLocation: sourceLocation)
        Conformance.expectStatus(o.result, .valid, "\(o.result.status)", sourceLocation: sourceLocation)
        #expect(o.result.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(o.result.access?.protocol == "PACE", sourceLocation: sourceLocation)
        #expect(o.read.files[.dg(1)] != nil, sourceLocation: sourceLocation)
    }

    /// PACE aborted with `code`: the read failed (`status: failed`), nothing of the LDS read, no BAC
    /// tried behind it, and (when given) exactly `steps` GENERAL AUTHENTICATE commands sent (the IS
    /// stopped at the faulty step).
    static func expectAborted(
        _ o: Conformance.Outcome, _ code: ErrorCode, steps: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        Conformance.expectStatus(o.result, .failed, sourceLocation: sourceLocation)
        #expect(o.result.error?.code == code, "\(o.result.error?.code.rawValue ?? "no error"): \(o.result.error?.message ?? "")",
                sourceLocation: sourceLocation)
        #expect(o.read.files[.dg(1)] == nil && o.read.files[.com] == nil, sourceLocation: sourceLocation)
        #expect(o.commands(ins: 0x84).isEmpty && o.commands(ins: 0x82).isEmpty, "BAC behind a failed PACE",
                sourceLocation: sourceLocation)
        if let steps {
            #expect(o.commands(ins: 0x86).count == steps, sourceLocation: sourceLocation)
        }
    }

    /// The data objects of the MSE:Set AT the IS sent.
    static func setATObjects(_ o: Conformance.Outcome) throws -> [UInt: [UInt8]] {
        let command = try CommandAPDU(bytes: try #require(o.commands(ins: 0x22).first))
        return Dictionary(try TLV.parseAll(command.data).map { ($0.tag, $0.bytes) }) { first, _ in first }
    }

    // MARK: Correct runs

    /// G_01 (5.7.1, moved to ICAO-P4 ISO7816_C_01): CFG.DFLT.PACE read with the MRZ and with the CAN.
    /// Expected: EF.CardAccess read, MSE:Set AT with DO80 = id-PACE-ECDH-GM-3DES-CBC-CBC and DO83 = 01
    /// (MRZ) / 02 (CAN), four GENERAL AUTHENTICATE (chained CLA 10 for 1-3, CLA 00 for the last;
    /// 7C 00 first), the LDS read under PACE secure messaging, inspection successful.
    @Test func ISO7816_G_01() async throws {
        for (key, reference) in [(AccessKey.mrz(Conformance.mrzKey), UInt8(0x01)), (.can(Self.can), 0x02)] {
            let o = try await Self.read(try Self.chip(), key: key)
            Self.expectSuccess(o)
            #expect(o.read.files[.cardAccess] != nil)
            let objects = try Self.setATObjects(o)
            #expect(objects[0x80] == Self.gm3DES.protocolOID.contentOctets)
            #expect(objects[0x83] == [reference])
            let ga = o.commands(ins: 0x86)
            #expect(ga.count == 4)
            #expect(ga.map { $0[0] } == [0x10, 0x10, 0x10, 0x00])
            #expect(Array(ga[0][4...6]) == [0x02, 0x7C, 0x00])
            #expect(o.result.access?.cipher == "3DES")
            #expect(o.result.access?.password == (reference == 1 ? "MRZ" : "CAN"))
        }
    }

    /// G_02 (5.7.2, moved to ICAO-P4 ISO7816_C_02): one chip per standardized domain parameter set
    /// usable with Generic Mapping (DH 0-2, ECDH 8-18), PACEInfo id-PACE-{DH,ECDH}-GM-AES-CBC-CMAC-128.
    /// Expected: PACE completes on each, DO84 names the set, inspection successful.
    @Test func ISO7816_G_02() async throws {
        for id in Array(0...2) + Array(8...18) {
            let agreement: KeyAgreementAlgorithm = id <= 2 ? .dh : .ecdh
            let o = try await Self.read(try Self.chip([Self.info(.gm, agreement, .aes128, id)]))
            Self.expectSuccess(o)
            #expect(o.result.access?.parameterId == id, "parameter ID \(id)")
            #expect(o.result.access?.mapping == "GM")
        }
    }

    /// G_03 (5.7.3, moved to ICAO-P4 ISO7816_C_03): the same with Integrated Mapping
    /// (id-PACE-{DH,ECDH}-IM-AES-CBC-CMAC-128), DH 0-2 and ECDH 8-18 except NIST P-224 (ID 10): the
    /// point encoding of Doc 9303-11's Integrated Mapping needs p ≡ 3 (mod 4), which P-224 lacks, so
    /// no IM chip can offer it. Expected: PACE-IM completes on each, inspection successful.
    @Test func ISO7816_G_03() async throws {
        for id in Array(0...2) + Array(8...18) where id != 10 {
            let agreement: KeyAgreementAlgorithm = id <= 2 ? .dh : .ecdh
            let o = try await Self.read(try Self.chip([Self.info(.im, agreement, .aes128, id)]))
            Self.expectSuccess(o)
            #expect(o.result.access?.parameterId == id, "parameter ID \(id)")
            #expect(o.result.access?.mapping == "IM")
        }
    }

    /// G_04 (5.7.4, moved to ICAO-P4 ISO7816_C_04): every cipher suite (3DES, AES-128/192/256) with
    /// DH-GM (ID 0) and ECDH-GM (ID 13). Expected: session keys derived per suite (SHA-1 / SHA-256
    /// KDF), secure messaging works (the LDS is read and verifies), inspection successful.
    @Test func ISO7816_G_04() async throws {
        for (agreement, id) in [(KeyAgreementAlgorithm.dh, 0), (.ecdh, 13)] {
            for cipher in [SymmetricCipher.tripleDES, .aes128, .aes192, .aes256] {
                let o = try await Self.read(try Self.chip([Self.info(.gm, agreement, cipher, id)]))
                Self.expectSuccess(o)
                #expect(o.result.access?.cipher == cipher.rawValue, "\(agreement) \(cipher)")
            }
        }
    }

    /// G_05 (5.7.5, moved to ICAO-P4 ISO7816_C_05): EF.CardAccess lists, besides the PACEInfo, a
    /// ChipAuthenticationInfo, a TerminalAuthenticationInfo and a SecurityInfo of an unknown protocol.
    /// Expected: the IS ignores what it does not use, runs PACE with the PACEInfo, successful.
    @Test func ISO7816_G_05() async throws {
        var chip = try Self.chip()
        let ta: [UInt8] = [0x30, 0x0D, 0x06, 0x08, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x02, 0x02, 0x01, 0x02]
        let unknown: [UInt8] = [0x30, 0x0B, 0x06, 0x06, 0x2B, 0x06, 0x01, 0x04, 0x01, 0x01, 0x02, 0x01, 0x01]
        let ca = ChipAuthenticationInfo(protocol: ChipAuthenticationProtocol(keyAgreement: .ecdh, cipher: .aes128), keyID: 1)
        let elements = [Self.gm3DES.rawBytes, ca.rawBytes, ta, unknown].sorted { $0.lexicographicallyPrecedes($1) }
        chip.files[.cardAccess] = TLV.encode(tag: 0x31, value: elements.flatMap { $0 })
        let infos = try SecurityInfos(derEncoded: try #require(chip.files[.cardAccess]))
        #expect(infos.infos.count == 4 && infos.paceInfos.count == 1)
        let o = try await Self.read(chip)
        Self.expectSuccess(o)
        #expect(try Self.setATObjects(o)[0x80] == Self.gm3DES.protocolOID.contentOctets)
    }

    /// G_06 (5.7.6, moved to ICAO-P4 ISO7816_C_06): EF.CardAccess offers four PACEInfos (ECDH-GM-3DES
    /// #13, ECDH-GM-AES-128 #12, DH-GM-AES-128 #0, ECDH-IM-AES-256 #13); the chip needs DO84 to tell
    /// them apart. Expected: the IS picks one it supports and names it consistently in MSE:Set AT
    /// (DO80 its OID, DO84 its parameterId); PACE with it succeeds.
    @Test func ISO7816_G_06() async throws {
        let offered = [Self.gm3DES, Self.info(.gm, .ecdh, .aes128, 12), Self.info(.gm, .dh, .aes128, 0), Self.info(.im, .ecdh, .aes256, 13)]
        let o = try await Self.read(try Self.chip(offered))
        Self.expectSuccess(o)
        let objects = try Self.setATObjects(o)
        let parameterID = try #require(objects[0x84]).reduce(0) { $0 << 8 | Int($1) }
        let chosen = try #require(offered.first { $0.protocolOID.contentOctets == objects[0x80] && $0.parameterID == parameterID })
        #expect(o.result.access?.parameterId == chosen.parameterID)
        #expect(o.result.access?.mapping == chosen.paceProtocol?.mapping.rawValue)
        #expect(o.result.access?.cipher == chosen.paceProtocol?.cipher.rawValue)
    }

    /// G_07 (5.7.7, moved to ICAO-P4 ISO7816_C_07): two PACEInfos, ECDH-GM-AES-128 with parameterId 32
    /// naming a PACEDomainParameterInfo (explicit brainpoolP256r1 parameters, parameterId 32), and
    /// ECDH-GM-3DES #13. Expected: the IS takes a supported one and sends its DO84 (here 32 for the
    /// explicit set, the stronger), PACE succeeds on the explicit parameters.
    @Test func ISO7816_G_07() async throws {
        let explicit = try ECGroup(standard: .brainpoolP256r1).explicitParameters
        let domain = PACEDomainParameterInfo(
            mapping: .gm, keyAgreement: .ecdh, domainParameter: try .explicit(explicit), parameterID: 32)
        let proprietary = Self.info(.gm, .ecdh, .aes128, 32)
        let o = try await Self.read(try Self.chip([proprietary, Self.gm3DES], domainParameterInfos: [domain]))
        Self.expectSuccess(o)
        let objects = try Self.setATObjects(o)
        #expect(objects[0x80] == proprietary.protocolOID.contentOctets)
        #expect(objects[0x84] == [0x20])
        #expect(o.result.access?.parameterId == 32)
        #expect(o.result.access?.domainParameters == "brainpoolP256r1")
    }

    // MARK: Error status words and wrong tags

    /// G_08 (5.7.8, moved to ICAO-P4 ISO7816_C_08): MSE:Set AT answered 6A80 / 6985. Expected: PACE
    /// aborted with the refusal reported (paceSetupRefused), no GENERAL AUTHENTICATE, no data read.
    @Test func ISO7816_G_08() async throws {
        for sw in [StatusWord(rawValue: 0x6A80), StatusWord(rawValue: 0x6985)] {
            let o = try await Self.read(try Self.chip { $0.setATStatus = sw })
            Self.expectAborted(o, .paceSetupRefused, steps: 0)
            #expect(o.result.error?.message.contains(sw.description) == true)
        }
    }

    /// G_09 (5.7.9, moved to ICAO-P4 ISO7816_C_09): the encrypted nonce of GA step 1 is altered (one
    /// bit) after the chip computed it, so the IS decrypts another nonce and the keys never agree.
    /// Expected: the chip refuses the IS's token at step 4 (6300); the IS aborts and reports the failed
    /// authentication (accessDenied: from the IS's side it cannot be told from a wrong password), no
    /// data read, no retry and no BAC.
    @Test func ISO7816_G_09() async throws {
        let o = try await Self.read(try Self.chip {
            $0.rewrite[1] = VirtualPACEConformance.value(of: 0x80) { var z = $0; z[z.count - 1] ^= 0x01; return z }
        })
        Self.expectAborted(o, .accessDenied, steps: 4)
    }

    /// G_10 (5.7.10, moved to ICAO-P4 ISO7816_C_10): GA step 1 answered 6A80. Expected: PACE aborted
    /// at step 1 (paceStepFailed), no further step.
    @Test func ISO7816_G_10() async throws {
        let o = try await Self.read(try Self.chip { $0.stepStatus[1] = StatusWord(rawValue: 0x6A80) })
        Self.expectAborted(o, .paceStepFailed, steps: 1)
        #expect(o.result.error?.message.contains("step 1") == true)
    }

    /// G_11 (5.7.11, moved to ICAO-P4 ISO7816_C_11): GA step 1 answers the nonce under tag 90 instead
    /// of 80. Expected: malformed answer, PACE aborted at step 1.
    @Test func ISO7816_G_11() async throws {
        let o = try await Self.read(try Self.chip(faults: [.wrongTag(step: 1)]))
        Self.expectAborted(o, .paceMalformedResponse, steps: 1)
    }

    /// G_12 (5.7.12, moved to ICAO-P4 ISO7816_C_12): GA step 2 (mapping) answered 6A80. Expected: PACE
    /// aborted at step 2.
    @Test func ISO7816_G_12() async throws {
        let o = try await Self.read(try Self.chip { $0.stepStatus[2] = StatusWord(rawValue: 0x6A80) })
        Self.expectAborted(o, .paceStepFailed, steps: 2)
        #expect(o.result.error?.message.contains("step 2") == true)
    }

    /// G_13 (5.7.13, moved to ICAO-P4 ISO7816_C_13): GA step 2 answers the mapping key under tag 92
    /// instead of 82. Expected: malformed answer, PACE aborted at step 2.
    @Test func ISO7816_G_13() async throws {
        let o = try await Self.read(try Self.chip(faults: [.wrongTag(step: 2)]))
        Self.expectAborted(o, .paceMalformedResponse, steps: 2)
    }

    /// G_14 (5.7.14, moved to ICAO-P4 ISO7816_C_14): Generic Mapping, the chip's mapping public key in
    /// GA step 2 is not a point of the curve, or is empty. Expected: the IS validates it and aborts
    /// before step 3 (paceInvalidPublicKey).
    @Test func ISO7816_G_14() async throws {
        let offCurve = try await Self.read(try Self.chip(faults: [.invalidMappingKey]))
        Self.expectAborted(offCurve, .paceInvalidPublicKey, steps: 2)
        let empty = try await Self.read(try Self.chip { $0.rewrite[2] = VirtualPACEConformance.value(of: 0x82) { _ in [] } })
        Self.expectAborted(empty, .paceInvalidPublicKey, steps: 2)
    }

    /// G_15 (5.7.15, moved to ICAO-P4 ISO7816_C_15): Integrated Mapping (ECDH-IM-AES-128 #13), the
    /// chip's GA step 2 answer carries a data object where IM has none (a tag 82 key as under GM).
    /// Expected: malformed answer, PACE aborted at step 2.
    @Test func ISO7816_G_15() async throws {
        let key = [0x04] + [UInt8](repeating: 0x11, count: 64)
        let o = try await Self.read(try Self.chip([Self.info(.im, .ecdh, .aes128, 13)]) {
            $0.rewrite[2] = VirtualPACEConformance.appending(TLV.encode(tag: 0x82, value: key))
        })
        Self.expectAborted(o, .paceMalformedResponse, steps: 2)
    }

    /// The ECDH public key defects of G_16/G_21 (brainpoolP256r1: 04 || X || Y, 32 bytes each).
    static let ecDefects: [(String, @Sendable ([UInt8]) -> [UInt8])] = {
        let p = [UInt8](hex: "A9FB57DBA1EEA9BC3E660A909D838D726E3BF623D52620282013481D1F6E5377")!
        return [
            ("X changed (off the curve)", { var k = $0; k[32] ^= 0x01; return k }),
            ("Y changed (off the curve)", { var k = $0; k[64] ^= 0x01; return k }),
            ("X = p (out of range)", { [0x04] + p + Array($0[33...]) }),
            ("Y = p (out of range)", { Array($0[...32]) + p }),
            ("X and Y zero", { _ in [0x04] + [UInt8](repeating: 0, count: 64) }),
            ("point at infinity", { _ in [0x00] }),
            ("unknown point format 05", { [0x05] + Array($0[1...]) }),
            ("one byte short", { Array($0.dropLast()) }),
            ("empty", { _ in [] }),
        ]
    }()

    /// G_16 (5.7.16, moved to ICAO-P4 ISO7816_C_16): GA step 2, each component of the chip's ECDH
    /// mapping key damaged in turn (X, Y changed; X or Y = p; (0, 0); infinity; wrong format byte;
    /// wrong length; empty). Expected for each: key rejected, PACE aborted before step 3.
    @Test func ISO7816_G_16() async throws {
        for (name, defect) in Self.ecDefects {
            let o = try await Self.read(try Self.chip { $0.rewrite[2] = VirtualPACEConformance.value(of: 0x82, defect) })
            Self.expectAborted(o, .paceInvalidPublicKey, steps: 2)
            #expect(o.result.error?.code == .paceInvalidPublicKey, "\(name)")
        }
    }

    /// The DH public key defects of G_17/G_22 (RFC 5114 1024-bit group, ID 0).
    static func dhDefects() throws -> [(String, @Sendable ([UInt8]) -> [UInt8])] {
        let p = try DHGroup(standard: .rfc5114_1024_160).parameters.p
        let n = p.count
        let pMinus1 = Array(p.dropLast()) + [p[n - 1] - 1]
        let pPlus1 = Array(p.dropLast()) + [p[n - 1] &+ 1]
        return [
            ("0", { _ in [UInt8](repeating: 0, count: n) }),
            ("1", { _ in [UInt8](repeating: 0, count: n - 1) + [1] }),
            ("p - 1", { _ in pMinus1 }),
            ("p", { _ in p }),
            ("p + 1", { _ in pPlus1 }),
            ("all FF (≥ p)", { _ in [UInt8](repeating: 0xFF, count: n) }),
            ("2 (outside the order-q subgroup)", { _ in [UInt8](repeating: 0, count: n - 1) + [2] }),
            ("longer than p", { [0x01] + $0 }),
            ("empty", { _ in [] }),
        ]
    }

    /// G_17 (5.7.17, moved to ICAO-P4 ISO7816_C_17): DH-GM (AES-128, ID 0), the chip's DH mapping
    /// value replaced by 0, 1, p-1, p, p+1, FF..FF, 2 (not in the subgroup), a too long or empty value.
    /// Expected for each: rejected, PACE aborted before step 3.
    @Test func ISO7816_G_17() async throws {
        for (name, defect) in try Self.dhDefects() {
            let o = try await Self.read(try Self.chip([Self.info(.gm, .dh, .aes128, 0)]) {
                $0.rewrite[2] = VirtualPACEConformance.value(of: 0x82, defect)
            })
            Self.expectAborted(o, .paceInvalidPublicKey, steps: 2)
            #expect(o.result.error?.code == .paceInvalidPublicKey, "\(name)")
        }
    }

    /// G_18 (5.7.18, moved to ICAO-P4 ISO7816_C_18): GA step 3 (key agreement) answered 6A80.
    /// Expected: PACE aborted at step 3.
    @Test func ISO7816_G_18() async throws {
        let o = try await Self.read(try Self.chip { $0.stepStatus[3] = StatusWord(rawValue: 0x6A80) })
        Self.expectAborted(o, .paceStepFailed, steps: 3)
        #expect(o.result.error?.message.contains("step 3") == true)
    }

    /// G_19 (5.7.19, moved to ICAO-P4 ISO7816_C_19): GA step 3 answers the ephemeral key under tag 94
    /// instead of 84. Expected: malformed answer, PACE aborted at step 3.
    @Test func ISO7816_G_19() async throws {
        let o = try await Self.read(try Self.chip(faults: [.wrongTag(step: 3)]))
        Self.expectAborted(o, .paceMalformedResponse, steps: 3)
    }

    /// G_20 (5.7.20, moved to ICAO-P4 ISO7816_C_20): the chip's ephemeral public key of GA step 3 is
    /// not a point of the curve, or is empty. Expected: rejected, PACE aborted before step 4 (no
    /// token sent).
    @Test func ISO7816_G_20() async throws {
        let offCurve = try await Self.read(try Self.chip(faults: [.invalidEphemeralKey]))
        Self.expectAborted(offCurve, .paceInvalidPublicKey, steps: 3)
        let empty = try await Self.read(try Self.chip { $0.rewrite[3] = VirtualPACEConformance.value(of: 0x84) { _ in [] } })
        Self.expectAborted(empty, .paceInvalidPublicKey, steps: 3)
    }

    /// G_21 (5.7.21, moved to ICAO-P4 ISO7816_C_21): GA step 3, each component of the chip's ECDH
    /// ephemeral key damaged in turn (as G_16). Expected for each: rejected before step 4.
    @Test func ISO7816_G_21() async throws {
        for (name, defect) in Self.ecDefects {
            let o = try await Self.read(try Self.chip { $0.rewrite[3] = VirtualPACEConformance.value(of: 0x84, defect) })
            Self.expectAborted(o, .paceInvalidPublicKey, steps: 3)
            #expect(o.result.error?.code == .paceInvalidPublicKey, "\(name)")
        }
    }

    /// G_22 (5.7.22, moved to ICAO-P4 ISO7816_C_22): DH-GM (ID 0), the chip's DH ephemeral value
    /// damaged as in G_17. Expected for each: rejected before step 4.
    @Test func ISO7816_G_22() async throws {
        for (name, defect) in try Self.dhDefects() {
            let o = try await Self.read(try Self.chip([Self.info(.gm, .dh, .aes128, 0)]) {
                $0.rewrite[3] = VirtualPACEConformance.value(of: 0x84, defect)
            })
            Self.expectAborted(o, .paceInvalidPublicKey, steps: 3)
            #expect(o.result.error?.code == .paceInvalidPublicKey, "\(name)")
        }
    }

    /// G_23 (5.7.23, moved to ICAO-P4 ISO7816_C_23): the chip returns in GA step 3 the ephemeral key
    /// the IS sent. Expected: Doc 9303-11 §4.4.3.3 has the IS check PK_IC ≠ PK_IFD: PACE aborted
    /// before step 4 (pacePublicKeyReflected).
    @Test func ISO7816_G_23() async throws {
        let o = try await Self.read(try Self.chip(faults: [.echoTerminalKey]))
        Self.expectAborted(o, .pacePublicKeyReflected, steps: 3)
    }

    /// G_24 (5.7.24, moved to ICAO-P4 ISO7816_C_24): GA step 4 answered 6300 (the chip does not accept
    /// the IS's token) or 6A80. Expected: PACE aborted; 6300 reported as the authentication refused
    /// (accessDenied, never retried with BAC), 6A80 as the failed step.
    @Test func ISO7816_G_24() async throws {
        let refused = try await Self.read(try Self.chip { $0.stepStatus[4] = StatusWord(rawValue: 0x6300) })
        Self.expectAborted(refused, .accessDenied, steps: 4)
        let failed = try await Self.read(try Self.chip { $0.stepStatus[4] = StatusWord(rawValue: 0x6A80) })
        Self.expectAborted(failed, .paceStepFailed, steps: 4)
    }

    /// G_25 (5.7.25, moved to ICAO-P4 ISO7816_C_25): GA step 4 answers the chip's token under tag 96
    /// instead of 86. Expected: malformed answer, PACE aborted, no secure messaging, nothing read.
    @Test func ISO7816_G_25() async throws {
        let o = try await Self.read(try Self.chip(faults: [.wrongTag(step: 4)]))
        Self.expectAborted(o, .paceMalformedResponse, steps: 4)
    }

    /// G_26 (5.7.26, moved to ICAO-P4 ISO7816_C_26): the chip's authentication token T_IC in GA step 4
    /// does not verify. Expected: the IS checks it and aborts (paceTokenInvalid), nothing read.
    @Test func ISO7816_G_26() async throws {
        let o = try await Self.read(try Self.chip(faults: [.badToken]))
        Self.expectAborted(o, .paceTokenInvalid, steps: 4)
    }

    // MARK: EF.CardAccess

    /// G_27 (5.7.27, moved to ICAO-P4 ISO7816_C_27): EF.CardAccess with a TLV error (the PACEInfo's
    /// length runs past the SET). Expected: PACE cannot be set up (paceNotSupported naming
    /// EF.CardAccess); the IS reports it without crashing and without sending MSE:Set AT.
    @Test func ISO7816_G_27() async throws {
        var chip = try Self.chip()
        var cardAccess = try #require(chip.files[.cardAccess])
        #expect(cardAccess[0] == 0x31 && cardAccess[2] == 0x30)
        cardAccess[3] += 1
        chip.files[.cardAccess] = cardAccess
        let o = try await Self.read(chip)
        Self.expectAborted(o, .paceNotSupported)
        #expect(o.commands(ins: 0x22).isEmpty)
        #expect(o.result.error?.message.contains("EF.CardAccess") == true)
    }

    /// G_28 (5.7.28, moved to ICAO-P4 ISO7816_C_28): the only PACEInfo has a parameterId that names no
    /// standardized set (5: reserved; 33: proprietary without a PACEDomainParameterInfo). Expected:
    /// PACE not possible (paceNotSupported), no MSE:Set AT, reported cleanly.
    @Test func ISO7816_G_28() async throws {
        for id in [5, 33] {
            let o = try await Self.read(try Self.chip([Self.info(.gm, .ecdh, .tripleDES, id)]))
            Self.expectAborted(o, .paceNotSupported)
            #expect(o.commands(ins: 0x22).isEmpty, "parameter ID \(id)")
        }
    }

    // MARK: PACE-CAM

    static let cam128 = info(.cam, .ecdh, .aes128, 13)

    /// Chip Authentication by PACE-CAM failed with `reason` (one of `reasons`); PACE itself succeeded;
    /// the chip is not shown genuine: `invalid`.
    static func expectCAMFailed(_ o: Conformance.Outcome, _ reasons: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(o.result.access?.mapping == "CAM", sourceLocation: sourceLocation)
        #expect(o.result.checks.chipAuthentication.result == .failed, sourceLocation: sourceLocation)
        #expect(reasons.contains(o.result.checks.chipAuthentication.reason ?? ""),
                "\(o.result.checks.chipAuthentication.reason ?? "no reason")", sourceLocation: sourceLocation)
        Conformance.expectStatus(o.result, .invalid, sourceLocation: sourceLocation)
    }

    /// G_29 (5.7.29, moved to ICAO-P4 ISO7816_C_29): PACE-CAM, GA step 4 answer without tag 8A (the
    /// chip authentication data are otherwise right). Expected: PACE completes, but the chip is not
    /// authenticated: Chip Authentication failed (noChipAuthenticationData), never valid.
    @Test func ISO7816_G_29() async throws {
        let o = try await Self.read(try Self.chip([Self.cam128], faults: [.missingCAMData]))
        Self.expectCAMFailed(o, ["noChipAuthenticationData"])
    }

    /// G_30 (5.7.30, moved to ICAO-P4 ISO7816_C_30): PACE-CAM, the 8A value is not the bare encrypted
    /// octets but wrapped once more in an ASN.1 OCTET STRING (04 L ECAD). Expected: Chip
    /// Authentication failed (the data do not decrypt), never valid.
    @Test func ISO7816_G_30() async throws {
        let o = try await Self.read(try Self.chip([Self.cam128]) {
            $0.rewrite[4] = VirtualPACEConformance.value(of: 0x8A) { TLV.encode(tag: 0x04, value: $0) }
        })
        Self.expectCAMFailed(o, ["noChipAuthenticationData"])
    }

    /// G_31 (5.7.31, moved to ICAO-P4 ISO7816_C_31): PACE-CAM with chip authentication data that do not
    /// map the EF.CardSecurity key onto the mapping key. Expected: Chip Authentication failed
    /// (keyMismatch), never valid.
    @Test func ISO7816_G_31() async throws {
        let o = try await Self.read(try Self.chip([Self.cam128], faults: [.wrongCAMData]))
        Self.expectCAMFailed(o, ["keyMismatch"])
    }

    /// G_32 (5.7.32, moved to ICAO-P4 ISO7816_C_32): PACE-CAM, correct chip authentication data under
    /// tag 8B instead of 8A. Expected: not taken as CAM data: Chip Authentication failed
    /// (noChipAuthenticationData), never valid.
    @Test func ISO7816_G_32() async throws {
        let o = try await Self.read(try Self.chip([Self.cam128]) {
            $0.rewrite[4] = VirtualPACEConformance.retag(0x8A, as: 0x8B)
        })
        Self.expectCAMFailed(o, ["noChipAuthenticationData"])
    }

    /// G_33 (5.7.33, moved to ICAO-P4 ISO7816_C_33): PACE-CAM, tag 8A present but empty. Expected:
    /// Chip Authentication failed, never valid.
    @Test func ISO7816_G_33() async throws {
        let o = try await Self.read(try Self.chip([Self.cam128]) {
            $0.rewrite[4] = VirtualPACEConformance.value(of: 0x8A) { _ in [] }
        })
        Self.expectCAMFailed(o, ["noChipAuthenticationData", "keyMismatch"])
    }

    /// G_34 (5.7.34, moved to ICAO-P4 ISO7816_C_34): PACE-CAM (AES-128, brainpoolP256r1) with
    /// EF.CardSecurity signed by the document signer. Expected: the IS reads EF.CardSecurity, verifies
    /// its signature (passive authentication) and the CAM data against its
    /// ChipAuthenticationPublicKeyInfo: chip authenticated (passed), inspection successful.
    @Test func ISO7816_G_34() async throws {
        let o = try await Self.read(try Self.chip([Self.cam128]))
        Self.expectSuccess(o)
        #expect(o.result.access?.mapping == "CAM")
        #expect(o.read.files[.cardSecurity] != nil)
        #expect(o.result.checks.chipAuthentication.result == .passed)
    }

    /// G_35 (5.7.35, moved to ICAO-P4 ISO7816_C_35): PACE-GM, and the chip adds a tag 8A to its GA
    /// step 4 answer. Expected: GM was chosen, so 8A is ignored: PACE succeeds, no chip
    /// authentication is claimed from it (not performed), inspection successful.
    @Test func ISO7816_G_35() async throws {
        let o = try await Self.read(try Self.chip {
            $0.rewrite[4] = VirtualPACEConformance.appending(TLV.encode(tag: 0x8A, value: [UInt8](repeating: 0x5A, count: 16)))
        })
        Self.expectSuccess(o)
        #expect(o.result.access?.mapping == "GM")
        #expect(o.result.checks.chipAuthentication.result == .notPerformed)
    }

    /// G_36 (5.7.36, active; CFG.PACE.ISO7816.G36): EF.CardAccess lists id-PACE-ECDH-GM-3DES-CBC-CBC
    /// and an "id-PACE-DH-CAM-AES-CBC-CMAC-128" (0.4.0.127.0.7.2.2.4.5.2: CAM exists for ECDH only, so
    /// this OID names no protocol); DG14 holds the same SecurityInfos, EF.CardSecurity a
    /// ChipAuthenticationPublicKeyInfo plus the SecurityInfos of EF.CardAccess. Expected: MSE:Set AT
    /// with DO80 = id-PACE-ECDH-GM-3DES-CBC-CBC and DO83 = 01, ordinary PACE-GM without CAM, inspection
    /// successful.
    @Test func ISO7816_G_36() async throws {
        let bogusOID: [UInt8] = [0x06, 0x0A, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x04, 0x05, 0x02]
        let bogus = TLV.encode(tag: 0x30, value: bogusOID + [0x02, 0x01, 0x02, 0x02, 0x01, 0x0D])
        let elements = [Self.gm3DES.rawBytes, bogus].sorted { $0.lexicographicallyPrecedes($1) }
        let cardAccess = TLV.encode(tag: 0x31, value: elements.flatMap { $0 })
        var chip = try Self.chip(dg14: TLV.encode(tag: 0x6E, value: cardAccess))
        chip.files[.cardAccess] = cardAccess
        let group = try KeyAgreementGroups.standardized(13)
        let caKey = try ChipAuthenticationPublicKeyInfo(
            keyAgreement: .ecdh, algorithm: .standardized(13),
            publicKey: try group.publicKey(privateKey: try group.generatePrivateKey(using: SystemRandom()), generator: group.generator),
            keyID: nil)
        let parsed = try SecurityInfos(derEncoded: cardAccess)
        #expect(parsed.paceInfos.count == 1 && parsed.infos.count == 2)
        chip.files[.cardSecurity] = try SpecimenDocument.cardSecurity(
            SecurityInfos(infos: parsed.infos + [.chipAuthenticationPublicKey(caKey)]), signer: ConformanceProfile.signer())
        let o = try await Self.read(chip)
        Self.expectSuccess(o)
        let objects = try Self.setATObjects(o)
        #expect(objects[0x80] == Self.gm3DES.protocolOID.contentOctets)
        #expect(objects[0x83] == [0x01])
        #expect(o.result.access?.mapping == "GM")
        #expect(o.read.files[.dg(14)] != nil)
    }

    /// G_38 (5.7.38, moved to ICAO-P4 ISO7816_C_36): PACE-CAM where DG14 (present, hashed in the SOD)
    /// holds no SecurityInfo at all (an empty SET). Expected: CAM is verified from EF.CardSecurity, as
    /// Doc 9303-11 §4.4.3.5.2 has it; chip authenticated, inspection successful.
    @Test func ISO7816_G_38() async throws {
        let o = try await Self.read(try Self.chip([Self.cam128], dg14: TLV.encode(tag: 0x6E, value: [0x31, 0x00])))
        Self.expectSuccess(o)
        #expect(o.read.files[.dg(14)] != nil)
        #expect(o.result.checks.chipAuthentication.result == .passed)
    }

    /// EF.CardSecurity of a PACE-CAM chip replaced by one (signed by the document signer) listing `extra`
    /// besides the chip's PACEInfos.
    static func cardSecurity(_ chip: inout VirtualChipConfiguration, extra: [SecurityInfo]) throws {
        let infos = chip.pace?.infos.map { SecurityInfo.pace($0) } ?? []
        chip.files[.cardSecurity] = try SpecimenDocument.cardSecurity(
            SecurityInfos(infos: infos + extra), signer: ConformanceProfile.signer())
    }

    /// G_39 (5.7.39, moved to ICAO-P4 ISO7816_C_37): PACE-CAM, EF.CardSecurity (validly signed) lists a
    /// chipAuthenticationPublicKey other than the chip's. Expected: CAM verification fails
    /// (keyMismatch): chip authentication failed, never valid.
    @Test func ISO7816_G_39() async throws {
        var chip = try Self.chip([Self.cam128])
        let group = try KeyAgreementGroups.standardized(13)
        let other = try group.publicKey(privateKey: try group.generatePrivateKey(using: SystemRandom()), generator: group.generator)
        try Self.cardSecurity(&chip, extra: [.chipAuthenticationPublicKey(try ChipAuthenticationPublicKeyInfo(
            keyAgreement: .ecdh, algorithm: .standardized(13), publicKey: other, keyID: 1))])
        let o = try await Self.read(chip)
        Self.expectCAMFailed(o, ["keyMismatch"])
        #expect(o.result.checks.passiveAuthentication.result == .passed)
    }

    /// G_40 (5.7.40, moved to ICAO-P4 ISO7816_C_38): PACE-CAM, EF.CardSecurity (validly signed) without
    /// a ChipAuthenticationPublicKeyInfo. Expected: CAM cannot be verified: chip authentication failed
    /// (noChipAuthenticationKey), never valid, no crash.
    @Test func ISO7816_G_40() async throws {
        var chip = try Self.chip([Self.cam128])
        try Self.cardSecurity(&chip, extra: [])
        let o = try await Self.read(chip)
        Self.expectCAMFailed(o, ["noChipAuthenticationKey"])
    }

    /// G_41 (5.7.41, moved to ICAO-P4 ISO7816_C_39): PACE-CAM on every standardized curve (IDs 8-18)
    /// with each CAM cipher (AES-128/192/256). Expected: PACE-CAM completes and the chip is
    /// authenticated on each, inspection successful.
    @Test func ISO7816_G_41() async throws {
        for id in 8...18 {
            for cipher in [SymmetricCipher.aes128, .aes192, .aes256] {
                let o = try await Self.read(try Self.chip([Self.info(.cam, .ecdh, cipher, id)]))
                Self.expectSuccess(o)
                #expect(o.result.checks.chipAuthentication.result == .passed, "\(id) \(cipher)")
            }
        }
    }
}
