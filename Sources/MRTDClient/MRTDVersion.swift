/// The one version of mrtdd and mrtdctl (`--version`, `GET /v1/health`, `mrtdctl health`).
public enum MRTDVersion {
    public static let string = "0.2.0"
}
