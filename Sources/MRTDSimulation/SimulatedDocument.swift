import FoundationEssentials
public import MRTDCore
import MRTDCrypto
import MRTDVerification
import MRTDProtocol

/// The one place the executables make the chips of `--simulate`: `mrtdctl read --simulate`
/// builds one from its `--sim-*` options, `mrtdd --simulate` presents ``daemonDocuments``. Every
/// document is the specimen, signed by the run's TEST-ONLY document signer (``SimulationPKI``).
public struct SimulatedDocument: Sendable {
    /// How the chip is opened.
    public enum Access: Sendable {
        /// BAC only, no EF.CardAccess.
        case bac
        /// PACE and BAC.
        case pace
        /// PACE only: GET CHALLENGE answers 6A88.
        case paceOnly
        /// PACE with the CAN only (ID cards): BAC and the MRZ password refused.
        case canOnly
        /// No access control at all: every file in plain, GET CHALLENGE refused (6D00).
        case plain
    }

    /// The TD3 MRZ of DG1 and of the access key (lines joined with `"\n"`).
    public var mrz: String = SpecimenDocument.erikssonMRZ
    /// The signer of EF.SOD; the run's simulation signer (``SimulationPKI/signer()``) when nil.
    public var signer: DocumentSigner?
    public var face: SpecimenDocument.FaceFormat = .jpeg
    public var faceEncoding: FaceEncoding = .iso19794_5
    /// DG5, DG7, DG11, DG12, DG13 and DG16 besides DG1 and DG2.
    public var fullLDS = false
    /// TEST ONLY: DG3/DG4 records served without Terminal Authentication.
    public var openBiometrics = false
    /// DG14/DG15 and the chip's keys; with Chip Authentication keys the chip also holds DG3/DG4 behind
    /// EAC (the run's CVCA and that of certs/test-eac).
    public var authentication: AuthenticationFixture?
    public var access: Access = .bac
    /// The PACEInfos of EF.CardAccess (not for `.bac`).
    public var paceInfos: [PACEInfo] = [SimulatedDocument.defaultPACEInfo]
    public var can = "123456"
    public var extendedLength = true
    public var maxReadLength: Int?
    public var lds2 = false
    public var quirks: Set<VirtualChipQuirk> = []
    /// No EF.CardAccess at all (a PACE chip that lost it).
    public var withoutCardAccess = false
    /// Further data groups (tag included) by number, over any the other options give (conformance cases).
    public var extraDataGroups: [Int: [UInt8]] = [:]
    /// Data groups (3...16) left out of the chip, EF.COM and EF.SOD (conformance cases).
    public var omittedDataGroups: Set<Int> = []

    /// PACE-GM, brainpoolP256r1, AES-128.
    public static let defaultPACEInfo = PACEInfo(
        protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)

    public init() {}

    /// The MRZ key of the specimen (Doc 9303's Eriksson passport).
    public static func specimenKey() throws -> MRZKey { try MRZ(SpecimenDocument.erikssonMRZ).accessKey }

    /// The virtual chip that presents this document.
    public func chip() throws -> VirtualChipConfiguration {
        let eac = authentication?.dg14 != nil
        var groups = authentication?.extraDataGroups ?? [:]
        if eac { groups.merge(EACTestSet.biometricDataGroups) { current, _ in current } }
        if fullLDS { groups.merge(SpecimenDocument.additionalDataGroups()) { current, _ in current } }
        if openBiometrics { groups.merge(SpecimenDocument.biometricDataGroups()) { current, _ in current } }
        groups.merge(extraDataGroups) { _, new in new }
        for number in omittedDataGroups { groups[number] = nil }
        let document = try SpecimenDocument.make(
            mrz: mrz, face: face, faceEncoding: faceEncoding, extraDataGroups: groups, signer: signer ?? SimulationPKI.signer())
        let key = try MRZ(mrz).accessKey
        var configuration: VirtualChipConfiguration
        if access == .bac || access == .plain {
            configuration = VirtualChipConfiguration(
                files: document.files, accessKey: key, extendedLength: extendedLength, maxReadLength: maxReadLength,
                lds2: lds2)
        } else {
            configuration = try VirtualChipConfiguration.paceChip(
                document: document, accessKey: key, infos: paceInfos, can: can,
                bac: access == .pace, mrzAllowed: access != .canOnly)
            configuration.extendedLength = extendedLength
            if let maxReadLength { configuration.maxReadLength = maxReadLength }
            configuration.lds2 = lds2
        }
        if access == .plain {
            configuration.plainAccess = true
            configuration.bacRefusal = .instructionNotSupported
        }
        configuration.authentication = authentication?.chip
        configuration = configuration.with(quirks: quirks)
        if eac { try SimulationPKI.equipEAC(&configuration, chipDate: CVDate(Date())) }
        if withoutCardAccess { configuration.files[.cardAccess] = nil }
        return configuration
    }

    /// What `mrtdd --simulate`'s virtual readers present, one per reader in turn: the BAC specimen
    /// passport (chip and active authentication keys in DG14/DG15, the further LDS1 groups, DG3/DG4
    /// behind EAC), then a PACE-only ID card that opens with the CAN 123456 (PACE-CAM, brainpoolP256r1,
    /// AES-128) and refuses the MRZ.
    /// `authenticationFaults` (TEST ONLY) give the passport's chip a Chip or Active Authentication fault.
    public static func daemonDocuments(
        quirks: Set<VirtualChipQuirk> = [], authenticationFaults: [SimulatedAuthenticationFault] = []
    ) throws -> [SimulatedDocument] {
        var passport = SimulatedDocument()
        passport.fullLDS = true
        let (dg14Faults, chipFaults) = SimulatedAuthenticationFault.split(authenticationFaults)
        passport.authentication = try AuthenticationFixture.make(
            chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)],
            activeAuthentication: .ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true),
            dg14Faults: dg14Faults, chipFaults: chipFaults)
        passport.quirks = quirks
        var idCard = SimulatedDocument()
        idCard.access = .canOnly
        idCard.paceInfos = [PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)]
        idCard.quirks = quirks
        return [passport, idCard]
    }

    /// `mrtdd --simulate`'s backend: `readers` virtual readers, each presenting one of
    /// ``daemonDocuments(quirks:)`` in turn.
    public static func daemonBackend(
        readers: Int, latency: Duration, quirks: Set<VirtualChipQuirk> = [], authenticationFaults: [SimulatedAuthenticationFault] = []
    ) throws -> VirtualReaderBackend {
        let backend = VirtualReaderBackend()
        let chips = try daemonDocuments(quirks: quirks, authenticationFaults: authenticationFaults).map { try $0.chip() }
        for index in 0..<readers {
            let name = "Virtual Reader \(index)"
            backend.addReader(name, latency: latency)
            backend.insert(chips[index % chips.count], into: name)
        }
        return backend
    }
}
