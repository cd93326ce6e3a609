/// The data groups of a read that are parsed into the result, parsed once: DG1, DG2 and
/// DG3-DG16 (`LDSContents`). `ReadResult.assemble` builds the result from them, the inspection
/// checks judge DG1's and DG2's structure by them, and the daemon and `mrtdctl read --face/--images`
/// take the images from them: nothing parses DG2 a second time.
///
/// The images are personal data: whoever keeps them (the daemon's `ImageBytes`) takes them from
/// here, and nothing else copies them.
public struct ParsedDataGroups: Sendable {
    /// DG1 as parsed, or the parser's error; nil when DG1 was not read.
    public let dg1: Result<DG1, LDSError>?
    /// DG2 as parsed, or the parser's error; nil when DG2 was not read.
    public let dg2: Result<DG2, LDSError>?
    /// DG3-DG16 among the files: details, biometrics and the images besides the face.
    public let contents: LDSContents
    /// DG3 and DG4 (when read) against the structure of Doc 9303-10 §4.7.3 / §4.7.4: the problems
    /// found (`BiometricGroup.structureProblems`), an empty list for a well-formed group.
    public let biometricStructureProblems: [Int: [String]]
    /// EF.ATR/INFO as read (not a data group, but judged with them: `checks.atrInfo`), nil when absent.
    public let atrInfo: [UInt8]?

    /// Parses the data groups among `files` (a group not read stays nil; one that does not parse
    /// keeps its error).
    public init(files: [LDSFile: [UInt8]]) {
        dg1 = files[.dg(1)].map { bytes in Result { () throws(LDSError) in try DG1(rawBytes: bytes) } }
        dg2 = files[.dg(2)].map { bytes in Result { () throws(LDSError) in try DG2(rawBytes: bytes) } }
        contents = LDSContents(files: files)
        var problems: [Int: [String]] = [:]
        for number in [3, 4] {
            if let bytes = files[.dg(number)] { problems[number] = BiometricGroup.structureProblems(rawBytes: bytes, file: .dg(number)) }
        }
        biometricStructureProblems = problems
        atrInfo = files[.atrInfo]
    }

    /// DG1's MRZ, nil when DG1 was not read or did not parse.
    public var mrz: MRZ? { (try? dg1?.get())?.mrz }

    /// DG2's first face image (the face the result describes), nil when DG2 was not read, did not
    /// parse or holds none.
    public var face: FaceImage? { (try? dg2?.get())?.faces.first }
}
