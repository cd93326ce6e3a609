public import MRTDCore
public import MRTDCrypto
import MRTDVerification
import SwiftASN1

/// The files of a virtual passport for the ICAO specimen ERIKSSON ANNA MARIA (Doc 9303-4 Appendix A),
/// with a synthetic face and an EF.SOD signed by the given document signer: `--simulate` passes its
/// per-process ``SimulationPKI``, the tests (MRTDTesting) the TEST-ONLY signer of `certs/test`.
///
/// Passive authentication succeeds only against that signer's CSCA; against a real trust store it must fail.
public struct SpecimenDocument: Sendable {
    /// Which embedded face image DG2 carries.
    public enum FaceFormat: String, Sendable, CaseIterable {
        /// JPEG (JFIF), `image/jpeg`.
        case jpeg
        /// JPEG 2000 in the JP2 box format, `image/jp2`.
        case jpeg2000
    }

    /// The specimen TD3 MRZ, its two lines joined with `"\n"`.
    public static let erikssonMRZ =
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\n"
        + "L898902C36UTO7408122F1204159ZE184226B<<<<<10"

    /// LDS version written into EF.COM (LDS 1.7: the version whose SOD is v0).
    public static let ldsVersion = "0107"
    /// Unicode version written into EF.COM.
    public static let unicodeVersion = "040000"

    /// The MRZ text in DG1 (lines joined with `"\n"`).
    public let mrzText: String
    /// The complete files, tag and length included: `.com`, `.sod`, `.dg(1)`, `.dg(2)` and any extra
    /// data groups.
    public let files: [LDSFile: [UInt8]]
    /// The exact image bytes inside DG2.
    public let faceImage: [UInt8]
    /// The document signer of EF.SOD (and of EF.CardSecurity on a PACE-CAM chip).
    public let signer: DocumentSigner
    /// Pixel width of ``faceImage``.
    public static let faceWidth = SpecimenAssets.faceWidth
    /// Pixel height of ``faceImage``.
    public static let faceHeight = SpecimenAssets.faceHeight

    /// Builds the specimen's files.
    ///
    /// - Parameters:
    ///   - face: which embedded image DG2 carries.
    ///   - faceEncoding: the biometric data block format of DG2.
    ///   - digest: the hash algorithm of the LDSSecurityObject and of the CMS signature.
    ///   - extraDataGroups: further complete data group files (tag included) keyed by number 3...16;
    ///     they are listed in EF.COM and hashed into the SOD like DG1 and DG2.
    ///   - signer: the document signer of EF.SOD.
    ///   - mrz: the TD3 MRZ of DG1 (lines joined with `"\n"`); the specimen's by default.
    public static func make(
        mrz: String = erikssonMRZ,
        face: FaceFormat = .jpeg,
        faceEncoding: FaceEncoding = .iso19794_5,
        digest: DigestAlgorithm = .sha256,
        extraDataGroups: [Int: [UInt8]] = [:],
        signer: DocumentSigner
    ) throws -> SpecimenDocument {
        let image = faceImageBytes(face)
        var dataGroups: [Int: [UInt8]] = [
            1: DG1.encode(mrz: String(mrz.filter { $0 != "\n" })),
            2: DG2.encode(image: image, width: faceWidth, height: faceHeight, encoding: faceEncoding),
        ]
        for (number, file) in extraDataGroups {
            guard (3...16).contains(number) else { throw SpecimenDocumentError.badDataGroupNumber(number) }
            dataGroups[number] = file
        }

        let present = dataGroups.keys.sorted().map { LDSFile.dg($0) }
        var files: [LDSFile: [UInt8]] = [:]
        for (number, file) in dataGroups { files[.dg(number)] = file }
        files[.com] = EFCOM.encode(ldsVersion: ldsVersion, unicodeVersion: unicodeVersion, dataGroups: present)

        // Doc 9303-10 §4.6.2: each hash covers the whole data group file as read, tag and length included.
        files[.sod] = try signer.signSOD(over: files, digest: digest)

        return SpecimenDocument(mrzText: mrz, files: files, faceImage: image, signer: signer)
    }

    /// The embedded synthetic face image (`certs/test/specimen/specimen-face.jpg` / `.jp2`).
    public static func faceImageBytes(_ format: FaceFormat) -> [UInt8] {
        switch format {
        case .jpeg: return faceJPEG
        case .jpeg2000: return faceJPEG2000
        }
    }

    private static let faceJPEG = Base64.decode(SpecimenAssets.faceJPEGBase64)
    private static let faceJPEG2000 = Base64.decode(SpecimenAssets.faceJPEG2000Base64)
}

/// What can go wrong building the specimen document.
public enum SpecimenDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An extra data group number outside 3...16 (DG1 and DG2 are the specimen's own).
    case badDataGroupNumber(Int)
    /// An embedded PEM that does not hold exactly one object.
    case badEmbeddedAsset(String)

    public var description: String {
        switch self {
        case .badDataGroupNumber(let n): return "extra data group number \(n) is not in 3...16"
        case .badEmbeddedAsset(let name): return "embedded \(name) is not a single PEM object"
        }
    }
}

/// RFC 4648 base64 for the generated asset literals; line breaks are skipped.
enum Base64 {
    static func decode(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            default: continue  // "=", line breaks
            }
            accumulator = (accumulator << 6) | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}
