"""ATC's vocabulary: the frameworks, input formats and option names of
`ge-atc` and `ge_xdsl.compile`.

Data only, cheap to import: `ge-atc --help` reads it without importing the
compiler (`ge_xdsl.atc`).
"""

FRAMEWORKS = {0: "Caffe", 1: "MindSpore", 3: "TensorFlow", 5: "ONNX"}
"""ATC's `--framework` values; this compiler reads TensorFlow (3) and ONNX (5)."""
TENSORFLOW_FRAMEWORK = 3
ONNX_FRAMEWORK = 5
SUPPORTED_FRAMEWORKS = {TENSORFLOW_FRAMEWORK: "tensorflow", ONNX_FRAMEWORK: "onnx"}
"""`--framework` values read -> the framework's name (also the manifest's)."""
FRAMEWORK_SUFFIXES = {".onnx": ONNX_FRAMEWORK, ".pb": TENSORFLOW_FRAMEWORK}
"""A model file's framework when none is given."""
FRAMEWORK_MESSAGES = {
    "tensorflow.GraphDef": TENSORFLOW_FRAMEWORK,
    "tensorboard.GraphDef": TENSORFLOW_FRAMEWORK,  # the protos tf_import reads
    "onnx.ModelProto": ONNX_FRAMEWORK,
}
"""An in-memory model's framework when none is given, by its protobuf type."""
DEFAULT_INPUT_FORMATS = {TENSORFLOW_FRAMEWORK: "NHWC"}
"""ATC's default `--input_format` per framework (NCHW for the others)."""
INPUT_FORMATS = ("NCHW", "NHWC", "ND", "NCDHW", "NDHWC")
"""`--input_format` values: the `data-format` of `infer-origin-format`."""

ATC_OPTIONS = (
    "input_format",
    "out_nodes",
    "auto_cast_mode",
    "precision_mode",
    "max_streams",
    "fusion_switch_file",
    "disable_fusion",
    "dump_graph",
    "time_passes",
)
"""The keyword options of `ge_xdsl.compile`: `ge-atc`'s flags of the same names."""
