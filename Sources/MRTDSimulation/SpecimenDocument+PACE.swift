public import MRTDCore
public import MRTDCrypto
import FoundationEssentials
import MRTDVerification
import SwiftASN1

extension SpecimenDocument {
    /// EF.CardSecurity for `securityInfos`: CMS SignedData with eContentType `id-SecurityObject`
    /// (TR-03110-3 §A.1.2.5), signed by `signer`.
    public static func cardSecurity(
        _ securityInfos: SecurityInfos, digest: DigestAlgorithm = .sha256, signer: DocumentSigner
    ) throws -> [UInt8] {
        try CMSSigner.sign(
            content: securityInfos.derEncoded(), eContentTypeOID: SecurityProtocolOID.securityObject.description,
            certificateDER: signer.certificate.derBytes, privateKey: signer.privateKey, digest: digest)
    }
}

/// How EF.CardSecurity of a PACE-CAM chip lists its Chip Authentication keys.
public enum CAMKeyLayout: Sendable, Hashable {
    /// One key, keyId 1.
    case single
    /// A second key on the same curve (a generic Chip Authentication key the chip does not use for
    /// the mapping) listed before the CAM key; each keyId as given, nil for none (gmrtd#447).
    case withOtherKeyOnTheCurve(camKeyID: Int?, otherKeyID: Int?)
}

extension VirtualChipConfiguration {
    /// A PACE chip with the specimen's files: EF.CardAccess listing `infos` (and explicit
    /// `domainParameterInfos` they refer to by parameter ID), EF.CardSecurity signing them (by the
    /// document's signer), and, when one of them is PACE-CAM, a static Chip Authentication key whose
    /// public half is in EF.CardSecurity.
    ///
    /// - Parameters:
    ///   - bac: whether BAC still works (a PACE-only chip answers GET CHALLENGE with 6A88).
    ///   - can: the card access number (nil: no CAN password).
    ///   - mrzAllowed: false for CAN-only ID cards.
    ///   - camKeys: the keys of EF.CardSecurity for PACE-CAM.
    public static func paceChip(
        document: SpecimenDocument, accessKey: MRZKey, infos: [PACEInfo],
        domainParameterInfos: [PACEDomainParameterInfo] = [], can: String? = "123456",
        bac: Bool = true, mrzAllowed: Bool = true, requireParameterID: Bool? = nil,
        faults: Set<VirtualPACE.Fault> = [], random: any RandomSource = SystemRandom(),
        camKeys: CAMKeyLayout = .single
    ) throws -> VirtualChipConfiguration {
        var files = document.files
        files[.cardAccess] = SecurityInfos(
            infos: infos.map { .pace($0) } + domainParameterInfos.map { .paceDomainParameters($0) }).derEncoded()
        var camKey: [UInt8]?
        if let cam = infos.first(where: { $0.paceProtocol?.mapping == .cam }), let id = cam.parameterID {
            let group = try KeyAgreementGroups.standardized(id)
            let key = try group.generatePrivateKey(using: random)
            let publicKey = try group.publicKey(privateKey: key, generator: group.generator)
            var keyInfos: [SecurityInfo] = []
            var camKeyID: Int? = 1
            if case .withOtherKeyOnTheCurve(let camID, let otherID) = camKeys {
                camKeyID = camID
                // The other key comes first: a reader taking the first key on the curve fails CAM.
                let other = try group.publicKey(privateKey: try group.generatePrivateKey(using: random), generator: group.generator)
                keyInfos.append(.chipAuthenticationPublicKey(try ChipAuthenticationPublicKeyInfo(
                    keyAgreement: .ecdh, algorithm: .standardized(id), publicKey: other, keyID: otherID)))
            }
            keyInfos.append(.chipAuthenticationPublicKey(try ChipAuthenticationPublicKeyInfo(
                keyAgreement: .ecdh, algorithm: .standardized(id), publicKey: publicKey, keyID: camKeyID)))
            camKey = key
            files[.cardSecurity] = try SpecimenDocument.cardSecurity(
                SecurityInfos(infos: infos.map { .pace($0) } + domainParameterInfos.map { .paceDomainParameters($0) } + keyInfos),
                signer: document.signer)
        } else {
            // Every PACE chip signs its PACE parameters in EF.CardSecurity (TR-03110-3 §A.1.2, as
            // issued chips do), read after PACE with any mapping.
            files[.cardSecurity] = try SpecimenDocument.cardSecurity(
                SecurityInfos(infos: infos.map { .pace($0) } + domainParameterInfos.map { .paceDomainParameters($0) }),
                signer: document.signer)
        }
        return VirtualChipConfiguration(
            files: files, accessKey: accessKey, bacRefusal: bac ? nil : .referencedDataNotFound, random: random,
            pace: VirtualPACE(
                infos: infos, can: can, mrzAllowed: mrzAllowed, requireParameterID: requireParameterID,
                camPrivateKey: camKey, faults: faults))
    }
}
