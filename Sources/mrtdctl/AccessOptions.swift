public import ArgumentParser
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import FoundationEssentials

extension AccessPolicy: ExpressibleByArgument {}

/// `--can` and `--access`: which password and which protocol open the chip.
struct AccessOptions: ParsableArguments {
    @Option(help: "The card access number printed on the document (PACE only; ID cards, newer passports).")
    var can: String?

    @Option(help: "auto: PACE when EF.CardAccess offers it, else BAC, and BAC after a PACE protocol failure (reported); pace: PACE only; bac: BAC only.")
    var access: AccessPolicy = .auto

    func validate() throws {
        if let can, can.isEmpty || !can.allSatisfy(\.isNumber) {
            throw ValidationError("--can takes the digits printed on the document")
        }
    }

    /// The CAN when given, else the MRZ key.
    func accessKey(mrz: MRZKey) -> AccessKey {
        can.map { .can($0) } ?? .mrz(mrz)
    }
}

/// The PACE side of the virtual chip (with --simulate).
struct PACESimulationOptions: ParsableArguments {
    enum ChipKind: String, ExpressibleByArgument, CaseIterable {
        /// BAC only, no EF.CardAccess.
        case bac
        /// PACE and BAC.
        case pace
        /// PACE only: GET CHALLENGE answers 6A88.
        case paceOnly = "pace-only"
        /// PACE with the CAN only (ID cards): BAC and the MRZ password refused.
        case canOnly = "can-only"
    }

    @Option(name: .customLong("sim-chip"), help: "Virtual chip kind: bac, pace (PACE and BAC), pace-only (BAC answers 6A88), can-only (PACE with the CAN only).")
    var kind: ChipKind = .bac

    @Option(name: .customLong("sim-pace"), help: ArgumentHelp(
        "A PACEInfo of the virtual chip as MAPPING,PARAMID,CIPHER (repeatable; default GM,13,AES-128).",
        discussion: "MAPPING is GM, IM or CAM; PARAMID 0-2 (RFC 5114 DH) or 8-18 (NIST and brainpool curves); CIPHER 3DES, AES-128, AES-192 or AES-256."))
    var pace: [String] = []

    @Option(name: .customLong("sim-can"), help: "The virtual chip's CAN.")
    var simCAN = "123456"

    func validate() throws {
        if kind == .bac && !pace.isEmpty {
            throw ValidationError("--sim-pace needs --sim-chip pace, pace-only or can-only")
        }
        _ = try infos()
    }

    /// The PACEInfos given by `--sim-pace`.
    func infos() throws -> [PACEInfo] {
        try (pace.isEmpty ? ["GM,13,AES-128"] : pace).map { text in
            let parts = text.split(separator: ",").map { $0.trimmingSpaces().uppercased() }
            guard parts.count == 3, let mapping = PACEMapping(rawValue: parts[0]), let id = Int(parts[1]),
                  let cipher = SymmetricCipher(rawValue: parts[2])
            else { throw ValidationError("--sim-pace '\(text)': expected MAPPING,PARAMID,CIPHER such as CAM,13,AES-128") }
            guard KeyAgreementGroups.name(ofStandardized: id) != nil else {
                throw ValidationError("--sim-pace '\(text)': parameter ID \(id) is not standardized (0-2, 8-18)")
            }
            let agreement: KeyAgreementAlgorithm = (0...2).contains(id) ? .dh : .ecdh
            guard let proto = PACEProtocol(mapping: mapping, keyAgreement: agreement, cipher: cipher) else {
                throw ValidationError("--sim-pace '\(text)': no such PACE protocol (CAM is ECDH with AES only)")
            }
            return PACEInfo(protocol: proto, parameterID: id)
        }
    }

    /// Turns the base configuration into the chosen kind of chip.
    func configuration(base: VirtualChipConfiguration, document: SpecimenDocument) throws -> VirtualChipConfiguration {
        guard kind != .bac else { return base }
        var config = try VirtualChipConfiguration.paceChip(
            document: document, accessKey: base.accessKey, infos: infos(), can: simCAN,
            bac: kind == .pace, mrzAllowed: kind != .canOnly)
        config.extendedLength = base.extendedLength
        config.maxReadLength = base.maxReadLength
        config.lds2 = base.lds2
        return config
    }
}
