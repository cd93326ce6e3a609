public import MRTDCore
import MRTDChipCrypto
import MRTDProtocol
import SwiftASN1

/// PACE on a virtual chip: which protocols it lists in EF.CardAccess, which passwords it takes,
/// and switches for the negative tests of RELIABILITY PACE-01..08.
public struct VirtualPACE: Sendable {
    /// Faults the chip can be told to commit.
    public enum Fault: Hashable, Sendable {
        /// Answer GA step `n` (1-4) with tag 9x instead of 8x (PACE-03).
        case wrongTag(step: Int)
        /// A mapping public key off the curve / out of range (PACE-04).
        case invalidMappingKey
        /// An ephemeral public key off the curve / out of range (PACE-04).
        case invalidEphemeralKey
        /// Echo the terminal's ephemeral public key as the chip's (PACE-05).
        case echoTerminalKey
        /// A wrong authentication token T_IC (PACE-06).
        case badToken
        /// PACE-CAM without the encrypted chip authentication data (tag 8A) (PACE-08).
        case missingCAMData
        /// PACE-CAM with chip authentication data that do not match the static key (PACE-08).
        case wrongCAMData
    }

    /// The PACEInfos in EF.CardAccess (each with its standardized parameter ID).
    public var infos: [PACEInfo]
    /// The CAN (nil: no CAN password).
    public var can: String?
    /// Whether the MRZ password is accepted (false on CAN-only ID cards: MSE:Set AT answers 6A88).
    public var mrzAllowed: Bool
    /// Answer 6A87 to MSE:Set AT without tag 84 (chips listing several PACEInfos do; PACE-02).
    public var requireParameterID: Bool
    /// The static Chip Authentication private key for PACE-CAM (its public key is in EF.CardSecurity).
    public var camPrivateKey: [UInt8]?
    public var faults: Set<Fault>
    /// The switches of TR-03105-5.1 unit ISO7816_G (`VirtualChip+PACEConformance.swift`).
    public var conformance = VirtualPACEConformance()

    public init(
        infos: [PACEInfo], can: String? = nil, mrzAllowed: Bool = true, requireParameterID: Bool? = nil,
        camPrivateKey: [UInt8]? = nil, faults: Set<Fault> = []
    ) {
        self.infos = infos
        self.can = can
        self.mrzAllowed = mrzAllowed
        self.requireParameterID = requireParameterID ?? (infos.count > 1)
        self.camPrivateKey = camPrivateKey
        self.faults = faults
    }
}

/// The chip's side of a PACE run in progress.
struct VirtualPACEState {
    var step = 0
    var info: PACEInfo?
    var paceProtocol: PACEProtocol?
    var group: (any ChipGroup)?
    var cipher = ChipCipher.aes128
    var kPi: [UInt8] = []
    var s: [UInt8] = []
    var mapSK: [UInt8] = []
    var generator: [UInt8] = []
    var ephSK: [UInt8] = []
    var ephPK: [UInt8] = []
    var terminalEphPK: [UInt8] = []
    var kEnc: [UInt8] = []
    var kMac: [UInt8] = []

    var inProgress: Bool { step > 0 }

    mutating func reset() {
        chipWipe(&kPi)
        chipWipe(&s)
        chipWipe(&mapSK)
        chipWipe(&ephSK)
        chipWipe(&kEnc)
        chipWipe(&kMac)
        self = VirtualPACEState()
    }
}

extension VirtualChip {
    /// EF.CardAccess or EF.CardSecurity by short EF identifier in the master file.
    func selectMasterFileEF(shortFileID sfi: UInt8) -> ResponseAPDU {
        let file: LDSFile
        switch sfi {
        case LDSFile.cardAccess.shortFileID: file = .cardAccess
        case LDSFile.cardSecurity.shortFileID:
            // EF.CardSecurity is readable after PACE (Doc 9303-10 §3.11.2).
            guard secureMessaging != nil else { return ResponseAPDU(statusWord: .securityStatusNotSatisfied) }
            file = .cardSecurity
        case LDSFile.atrInfo.shortFileID:
            // gmrtd#226: refused before access control on some chips.
            if configuration.quirks.contains(.efDir6982BeforeAccess) && secureMessaging == nil {
                quirkState.refusedBeforeAccess += 1
                return ResponseAPDU(statusWord: .securityStatusNotSatisfied)
            }
            file = .atrInfo
        default: return ResponseAPDU(statusWord: .fileNotFound)
        }
        guard configuration.files[file] != nil else { return ResponseAPDU(statusWord: .fileNotFound) }
        selected = file
        return ResponseAPDU(statusWord: .success)
    }

    /// MSE:Set AT for PACE (Doc 9303-11 §4.4.4.1): 80 OID, 83 password reference, 84 parameter ID.
    func paceSetAT(_ command: CommandAPDU) -> ResponseAPDU {
        paceState.reset()
        guard let pace = configuration.pace else { return ResponseAPDU(statusWord: .instructionNotSupported) }
        guard secureMessaging == nil else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
        guard let objects = try? TLV.parseAll(command.data, maxDepth: 1),
              let oidObject = objects.first(where: { $0.tag == 0x80 }),
              let reference = objects.first(where: { $0.tag == 0x83 })?.bytes, reference.count == 1
        else { return ResponseAPDU(statusWord: .incorrectData) }
        let parameterID = objects.first(where: { $0.tag == 0x84 })?.bytes.reduce(0) { $0 << 8 | Int($1) }
        if parameterID == nil && pace.requireParameterID { return ResponseAPDU(statusWord: .lcInconsistentWithP1P2) }
        guard let info = pace.infos.first(where: {
            $0.protocolOID.contentOctets == oidObject.bytes
                && (parameterID == nil || $0.parameterID == parameterID)
        }), let proto = info.paceProtocol else {
            return ResponseAPDU(statusWord: .incorrectData)
        }
        let cipher = ChipCipher(proto.cipher)
        let passwordKey: [UInt8]?
        switch reference[0] {
        case 0x01 where pace.mrzAllowed:
            passwordKey = try? ChipKeyDerivation.passwordKey(mrzInformation: configuration.accessKey.mrzInformation, cipher: cipher)
        case 0x02 where pace.can != nil:
            passwordKey = try? ChipKeyDerivation.passwordKey(cardAccessNumber: pace.can ?? "", cipher: cipher)
        default: return ResponseAPDU(statusWord: .referencedDataNotFound)
        }
        // The chip's domain parameters as its own EF.CardAccess states them (standardized or explicit).
        guard let passwordKey,
              let cardAccess = configuration.files[.cardAccess].flatMap({ try? SecurityInfos(derEncoded: $0) }),
              let parameters = PACEParameters.supported(in: cardAccess).first(where: { $0.info == info }),
              let group = try? ChipGroups.make(ChipDomainParameters(parameters.domainParameters))
        else { return ResponseAPDU(statusWord: .incorrectData) }
        paceState.info = info
        paceState.paceProtocol = proto
        paceState.group = group
        paceState.cipher = cipher
        paceState.kPi = passwordKey
        paceState.step = 1
        return ResponseAPDU(statusWord: .success)
    }

    /// GENERAL AUTHENTICATE steps 1-4, chip side (Doc 9303-11 §4.4.4.2).
    func paceGeneralAuthenticate(_ command: CommandAPDU) -> ResponseAPDU {
        guard let pace = configuration.pace, let proto = paceState.paceProtocol, let group = paceState.group,
              let outer = try? TLV.parse(command.data, maxDepth: 2), outer.tag == 0x7C,
              let objects = try? outer.children(maxDepth: 1)
        else {
            paceState.reset()
            return ResponseAPDU(statusWord: .incorrectData)
        }
        let cipher = paceState.cipher
        let random = configuration.drawRandom
        let ellipticCurve = group.isEllipticCurve
        let step = paceState.step
        func answer(_ tag: UInt, _ value: [UInt8]) -> ResponseAPDU {
            let tag = pace.faults.contains(.wrongTag(step: step)) ? tag + 0x10 : tag
            return ResponseAPDU(data: TLV.encode(tag: 0x7C, value: TLV.encode(tag: tag, value: value)), statusWord: .success)
        }
        func fail(_ sw: StatusWord = .incorrectData) -> ResponseAPDU {
            paceState.reset()
            return ResponseAPDU(statusWord: sw)
        }
        func value(_ tag: UInt) -> [UInt8]? { objects.first { $0.tag == tag }?.bytes }
        do {
            switch step {
            case 1:
                // The encrypted nonce z = E(K_π, s).
                paceState.s = try random(ChipPACE.nonceLength(cipher))
                let z = try ChipPACE.encryptNonce(paceState.s, passwordKey: paceState.kPi, cipher: cipher)
                paceState.step = 2
                return answer(0x80, z)
            case 2:
                guard let data = value(0x81) else { return fail() }
                paceState.step = 3
                if proto.mapping == .im {
                    let r = try ChipPACE.pseudoRandom(s: paceState.s, t: data, cipher: cipher, primeBitCount: group.primeBitCount)
                    paceState.generator = try group.integratedMapping(pseudoRandom: r)
                    return ResponseAPDU(data: [0x7C, 0x00], statusWord: .success)
                }
                try group.validatePublicKey(data)
                paceState.mapSK = try group.generatePrivateKey(random: random)
                var mapPK = try group.publicKey(privateKey: paceState.mapSK, generator: group.generator)
                let h = try group.sharedElement(privateKey: paceState.mapSK, peerPublicKey: data)
                paceState.generator = try group.genericMapping(nonce: paceState.s, sharedElement: h)
                if pace.faults.contains(.invalidMappingKey) { mapPK[mapPK.count - 1] ^= 0x01 }
                return answer(0x82, mapPK)
            case 3:
                guard let terminalPK = value(0x83) else { return fail() }
                try group.validatePublicKey(terminalPK)
                paceState.ephSK = try group.generatePrivateKey(random: random)
                paceState.ephPK = try group.publicKey(privateKey: paceState.ephSK, generator: paceState.generator)
                paceState.terminalEphPK = terminalPK
                var k = try group.sharedSecret(privateKey: paceState.ephSK, peerPublicKey: terminalPK)
                defer { chipWipe(&k) }
                paceState.kEnc = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.encryption, cipher: cipher)
                paceState.kMac = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.mac, cipher: cipher)
                paceState.step = 4
                var sent = pace.faults.contains(.echoTerminalKey) ? terminalPK : paceState.ephPK
                if pace.faults.contains(.invalidEphemeralKey) { sent[sent.count - 1] ^= 0x01 }
                return answer(0x84, sent)
            case 4:
                guard command.cla & 0x10 == 0, let tIFD = value(0x85) else { return fail() }
                let expected = try ChipPACE.authenticationToken(
                    kMac: paceState.kMac, cipher: cipher, protocolOID: proto.oid.description, publicKey: paceState.ephPK, ellipticCurve: ellipticCurve)
                // A wrong password gives other keys: the terminal's token does not verify.
                guard tIFD == expected else { return fail(wrongKeyRefusal) }
                var tIC = try ChipPACE.authenticationToken(
                    kMac: paceState.kMac, cipher: cipher, protocolOID: proto.oid.description, publicKey: paceState.terminalEphPK,
                    ellipticCurve: ellipticCurve)
                if pace.faults.contains(.badToken) { tIC[0] ^= 0x01 }
                var objects = TLV.encode(tag: pace.faults.contains(.wrongTag(step: 4)) ? 0x96 : 0x86, value: tIC)
                if proto.mapping == .cam, !pace.faults.contains(.missingCAMData), let staticSK = pace.camPrivateKey, ellipticCurve {
                    // CA_IC = SK_map,IC · SK_IC⁻¹ mod n; A_IC = E(KSEnc, CA_IC) (§4.4.3.5.2).
                    var caIC = pace.faults.contains(.wrongCAMData)
                        ? try group.generatePrivateKey(random: random)
                        : try ChipPACE.chipAuthenticationData(mappingKey: paceState.mapSK, staticKey: staticSK, group: group)
                    defer { chipWipe(&caIC) }
                    let encrypted = try ChipPACE.encryptChipAuthenticationData(caIC, kEnc: paceState.kEnc, cipher: cipher)
                    objects += TLV.encode(tag: 0x8A, value: encrypted)
                }
                // The answer travels in plain; protection starts with the next command, SSC = 0.
                secureMessaging = ChipSecureMessaging(
                    cipher: cipher, kEnc: paceState.kEnc, kMac: paceState.kMac,
                    ssc: [UInt8](repeating: 0, count: cipher.blockSize))
                eacState.chipIdentifier = try ChipTerminalAuthentication.compressed(paceState.ephPK, ellipticCurve: ellipticCurve)
                paceState.reset()
                return ResponseAPDU(data: TLV.encode(tag: 0x7C, value: objects), statusWord: .success)
            default:
                return fail(.conditionsNotSatisfied)
            }
        } catch {
            return fail()
        }
    }
}
