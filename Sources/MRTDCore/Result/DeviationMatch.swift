extension ReadResult {
    /// A deviation from a verified deviation list (Doc 9303-12 §10) that matches the document, and
    /// what it means for the checks that failed.
    public struct DeviationMatch: Sendable, Equatable, Codable {
        /// The deviation type's name (`LDS-DGHashWrong`, `MRZ-WrongCheckDigit`, `CertOrKey-AAKeyCompromised`, …;
        /// `unknown` for an OID outside Doc 9303-12 §10.2).
        public var type: String
        /// The deviation type OID (`2.23.136.1.1.7.2.2`).
        public var oid: String
        /// What the deviation concerns, when its parameters say (`DG2`, `documentNumber`).
        public var affects: String?
        /// The issuer's own description, if the list gives one.
        public var description: String?
        /// `tolerated`: a check failed, the deviation explains it, and the failure does not remove the
        /// basis of the other checks (status `unverified` instead of `invalid`); `notTolerated`: a check
        /// failed that the deviation names, but mrtdd does not accept it (see `explanation`);
        /// `informational`: nothing failed that the deviation covers.
        public var effect: String
        /// The check the deviation relates to (`passiveAuthentication`, `dataGroupStructure`, …), if any.
        public var check: String?
        /// Why, in words.
        public var explanation: String
        /// The deviation list it came from (file) and its signer's subject.
        public var source: String
        public var signer: String

        public init(
            type: String, oid: String, affects: String?, description: String?, effect: String, check: String?,
            explanation: String, source: String, signer: String
        ) {
            self.type = type
            self.oid = oid
            self.affects = affects
            self.description = description
            self.effect = effect
            self.check = check
            self.explanation = explanation
            self.source = source
            self.signer = signer
        }
    }
}
