public import MRTDCore

/// TEST ONLY: DG3 / DG4 as BSI TR-03105-5.1 §8.2 lays out its fingerprint and iris sets (synthetic
/// images: a WSQ-marked byte string, the specimen's JPEG 2000 picture, grey ramps as RAW), and the
/// parts to build the defective groups of units LDS_D / LDS_E from.
///
/// ```
/// 63 | 76 { 7F61 { 02 01 n ; 7F60 { A1 { 80 0101, 81 type, 82 subtype, 87 0101, 88 format type } ;
///                                 5F2E <ISO/IEC 19794-4 / -6 record> } × n } }
/// ```
public enum ConformanceBiometrics {
    /// One biometric information template `7F60`: each header field is written when not nil.
    public struct Instance: Sendable, Equatable {
        /// `81`: finger `08`, iris `10`.
        public var biometricType: [UInt8]?
        /// `82`: CBEFF subtype of the finger or eye.
        public var subtype: [UInt8]?
        /// `87`: `0101` (ISO/IEC JTC 1/SC 37).
        public var formatOwner: [UInt8]?
        /// `88`: `0007` (ISO/IEC 19794-4), `0009` (19794-6).
        public var formatType: [UInt8]?
        /// The value of `5F2E`; nil: no biometric data block.
        public var record: [UInt8]?

        public init(biometricType: [UInt8]?, subtype: [UInt8]?, formatOwner: [UInt8]? = [0x01, 0x01],
                    formatType: [UInt8]?, record: [UInt8]?) {
            self.biometricType = biometricType
            self.subtype = subtype
            self.formatOwner = formatOwner
            self.formatType = formatType
            self.record = record
        }

        /// The template's bytes.
        public var encoded: [UInt8] {
            var fields = [TLV.encode(tag: 0x80, value: [0x01, 0x01])]  // ICAO header version
            if let biometricType { fields.append(TLV.encode(tag: 0x81, value: biometricType)) }
            if let subtype { fields.append(TLV.encode(tag: 0x82, value: subtype)) }
            if let formatOwner { fields.append(TLV.encode(tag: 0x87, value: formatOwner)) }
            if let formatType { fields.append(TLV.encode(tag: 0x88, value: formatType)) }
            var parts = [TLV.encode(tag: 0xA1, children: fields)]
            if let record { parts.append(TLV.encode(tag: 0x5F2E, value: record)) }
            return TLV.encode(tag: 0x7F60, children: parts)
        }
    }

    /// DG3 (`file` `.dg(3)`) or DG4 with `instances`; the number of instances `02` is
    /// `instanceCount` (default: the number of instances), left out with `withoutInstanceCount`.
    public static func group(_ file: LDSFile, _ instances: [Instance], instanceCount: Int? = nil,
                             withoutInstanceCount: Bool = false) -> [UInt8] {
        var elements: [[UInt8]] = []
        if !withoutInstanceCount {
            elements.append(TLV.encode(tag: 0x02, value: [UInt8(instanceCount ?? instances.count)]))
        }
        elements += instances.map(\.encoded)
        return TLV.encode(tag: file.tag ?? 0x63, value: TLV.encode(tag: 0x7F61, children: elements))
    }

    /// Finger image compression of ISO/IEC 19794-4 (§7.1.13).
    public enum FingerCompression: Int, Sendable { case raw = 0, wsq = 2, jpeg2000 = 4 }
    /// Iris image format of ISO/IEC 19794-6:2005 (mono RAW 2, mono JPEG 2000 14).
    public enum IrisFormat: Int, Sendable { case raw = 2, jpeg2000 = 14 }

    /// A finger instance: ISO/IEC 19794-4 position (1 right thumb, 2 right index, 7 left index).
    public static func finger(position: Int, _ compression: FingerCompression) -> Instance {
        let (image, width, height) = image(compression == .wsq ? .wsq : compression == .jpeg2000 ? .jpeg2000 : .raw)
        return Instance(
            biometricType: [0x08], subtype: [BiometricGroup.biometricSubtype(file: .dg(3), position: position)],
            formatType: [0x00, 0x07],
            record: BiometricRecord.encodeISO19794_4(
                image: image, position: position, compression: compression.rawValue, width: width, height: height))
    }

    /// An iris instance: eye 1 right, 2 left.
    public static func iris(eye: Int, _ format: IrisFormat) -> Instance {
        let (image, width, height) = image(format == .raw ? .raw : .jpeg2000)
        return Instance(
            biometricType: [0x10], subtype: [BiometricGroup.biometricSubtype(file: .dg(4), position: eye)],
            formatType: [0x00, 0x09],
            record: BiometricRecord.encodeISO19794_6(image: image, eye: eye, imageFormat: format.rawValue, width: width, height: height))
    }

    /// Fingerprint image set 1 (§8.2.6, the DG3 of CFG.DFLT.EAC): right and left index, WSQ.
    public static var fingerprintSet1: [Instance] { [finger(position: 2, .wsq), finger(position: 7, .wsq)] }
    /// Fingerprint image set 2 (§8.2.7): right and left index, JPEG 2000.
    public static var fingerprintSet2: [Instance] { [finger(position: 2, .jpeg2000), finger(position: 7, .jpeg2000)] }
    /// Fingerprint image set 3 (§8.2.8): right index, left index, right thumb, WSQ.
    public static var fingerprintSet3: [Instance] {
        [finger(position: 2, .wsq), finger(position: 7, .wsq), finger(position: 1, .wsq)]
    }
    /// Iris image set 1 (§8.2.9, the DG4 of CFG.DFLT.EAC): right and left eye, RAW.
    public static var irisSet1: [Instance] { [iris(eye: 1, .raw), iris(eye: 2, .raw)] }
    /// Iris image set 2 (§8.2.10): right and left eye, JPEG 2000.
    public static var irisSet2: [Instance] { [iris(eye: 1, .jpeg2000), iris(eye: 2, .jpeg2000)] }

    private enum ImageKind { case wsq, jpeg2000, raw }

    private static func image(_ kind: ImageKind) -> ([UInt8], Int, Int) {
        switch kind {
        case .wsq:
            return ([0xFF, 0xA0, 0xFF, 0xA8, 0x00, 0x02] + Array("TEST ONLY".utf8) + [0xFF, 0xA1], 400, 500)
        case .jpeg2000:
            return (SpecimenDocument.faceImageBytes(.jpeg2000), SpecimenDocument.faceWidth, SpecimenDocument.faceHeight)
        case .raw:
            // A 32 × 24 grey ramp, 8 bits per pixel.
            return ((0..<(32 * 24)).map { UInt8(($0 % 32) * 8) }, 32, 24)
        }
    }
}
