"""`transformers` architectures unlike the hand-written zoo, as random inits.

Each entry is a model class of `transformers` built from a small config
(seeded like the rest of the zoo, nothing downloaded) and wrapped so that its
export has named tensor inputs and outputs. Together they cover what the
bench set does not: relative and rotary positions, grouped-query attention,
windowed attention (Swin), grouped and depthwise CNNs (ConvNeXt, RegNet,
PoolFormer; EfficientNet is `builders.EfficientNetEncoder`),
convolution+attention hybrids (MobileViT, SegFormer), audio encoders
(Whisper, wav2vec2, HuBERT), recurrent and state-space models (RWKV,
Mamba), decoders with parallel attention and MLP or rotary variants (Phi,
Falcon, OPT), a text model with span convolutions (ConvBERT), whole
encoder-decoders (BART, T5) and a ViT with interpolated positions (DINOv2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from model_zoo.specs import InputSpec, ZooModel

TOKENS = 11
"""The sequence length of the text models' inputs."""
VOCAB = 101
TOKEN_IDS = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2)
TEXT = dict(vocab_size=VOCAB, max_position_embeddings=64, **TOKEN_IDS)
IMAGE = 32


@dataclass(frozen=True)
class Architecture:
    """A `transformers` model class, its config and what its forward returns."""

    model: str
    config: str
    settings: dict = field(default_factory=dict)
    outputs: Sequence[str] = ("last_hidden_state",)
    submodule: str | None = None
    """An attribute of the model to export instead (Whisper's encoder)."""
    exporters: tuple[str, ...] = ("dynamo",)

    def build(self, inputs: Sequence[str]):
        """The model, seeded by the caller, taking `inputs` positionally and
        returning the `outputs` of its forward's result as a tuple."""
        import torch
        import transformers

        from model_zoo.builders import randomize_norms

        config = getattr(transformers, self.config)(**self.settings)
        model = getattr(transformers, self.model)(config)
        if self.submodule is not None:
            model = getattr(model, self.submodule)
        randomize_norms(model)  # an init's zero-gamma norms zero whole outputs
        outputs = tuple(self.outputs)

        class Named(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model.eval()

            def forward(self, *tensors):
                result = self.model(**dict(zip(inputs, tensors, strict=True)))
                return tuple(getattr(result, name) for name in outputs)

        return Named()


def _text(name: str, architecture: Architecture, mask: bool = True) -> ZooModel:
    inputs = [InputSpec("input_ids", (TOKENS,), "int64", "tokens", VOCAB)]
    if mask:
        inputs.append(InputSpec("attention_mask", (TOKENS,), "int64", "mask"))
    return _model(name, architecture, tuple(inputs))


def _image(name: str, architecture: Architecture, size: int = IMAGE) -> ZooModel:
    return _model(name, architecture, (InputSpec("pixel_values", (3, size, size)),))


def _model(name, architecture, inputs) -> ZooModel:
    names = [spec.name for spec in inputs]
    return ZooModel(
        name,
        lambda: architecture.build(names),
        inputs,
        tuple(architecture.outputs),
        exporters=architecture.exporters,
    )


_BERTLIKE = dict(
    hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=100
)
_CNN = dict(hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1])
_T5 = (
    dict(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=100, num_layers=2, num_heads=4)
    | TOKEN_IDS
)
_VIT = dict(
    image_size=IMAGE,
    patch_size=4,
    hidden_size=48,
    num_hidden_layers=2,
    num_attention_heads=3,
)
_SPEECH = dict(
    _BERTLIKE,
    conv_dim=(32, 32, 32),
    conv_stride=(5, 2, 2),
    conv_kernel=(10, 3, 3),
    num_conv_pos_embeddings=16,
    num_conv_pos_embedding_groups=4,
)
"""A wav2vec2-like encoder over raw audio (wav2vec2, HuBERT)."""

ARCHITECTURES: dict[str, ZooModel] = {
    model.name: model
    for model in (
        _text(
            "distilbert",
            Architecture(
                "DistilBertModel",
                "DistilBertConfig",
                dict(TEXT, dim=64, n_layers=2, n_heads=4, hidden_dim=100),
            ),
        ),
        _text(
            "roberta",
            Architecture("RobertaModel", "RobertaConfig", dict(TEXT, **_BERTLIKE)),
        ),
        _text(
            "albert",
            Architecture(
                "AlbertModel",
                "AlbertConfig",
                dict(TEXT, embedding_size=32, **_BERTLIKE),
            ),
        ),
        _text(
            "deberta_v2",
            Architecture(
                "DebertaV2Model",
                "DebertaV2Config",
                dict(TEXT, relative_attention=True, position_buckets=8, **_BERTLIKE),
            ),
        ),
        _text(
            "t5_encoder",
            Architecture(
                "T5EncoderModel",
                "T5Config",
                _T5,
                exporters=("torchscript",),  # dynamo: no decomposition
            ),
        ),
        _text(
            "clip_text",
            Architecture(
                "CLIPTextModel",
                "CLIPTextConfig",
                dict(TEXT, **_BERTLIKE),
                ("last_hidden_state", "pooler_output"),
            ),
        ),
        _text(
            "llama",
            Architecture(
                "LlamaModel",
                "LlamaConfig",
                dict(TEXT, num_key_value_heads=2, **_BERTLIKE),
            ),
            mask=False,
        ),
        _text(
            "qwen2",
            Architecture(
                "Qwen2Model",
                "Qwen2Config",
                dict(TEXT, num_key_value_heads=2, **_BERTLIKE),
            ),
            mask=False,
        ),
        _text(
            "gpt_neo",
            Architecture(
                "GPTNeoModel",
                "GPTNeoConfig",
                dict(
                    TEXT,
                    hidden_size=64,
                    num_layers=2,
                    num_heads=4,
                    attention_types=[[["global", "local"], 1]],
                    window_size=8,
                ),
            ),
            mask=False,
        ),
        _text(
            "bloom",
            Architecture(
                "BloomModel",
                "BloomConfig",
                dict(
                    vocab_size=VOCAB, hidden_size=64, n_layer=2, n_head=4, **TOKEN_IDS
                ),
            ),
            mask=False,
        ),
        _text(
            "mamba",
            Architecture(
                "MambaModel",
                "MambaConfig",
                dict(
                    vocab_size=VOCAB,
                    hidden_size=64,
                    state_size=8,
                    num_hidden_layers=2,
                    **TOKEN_IDS,
                ),
            ),
            mask=False,
        ),
        _text(
            "rwkv",
            Architecture(
                "RwkvModel",
                "RwkvConfig",
                dict(
                    vocab_size=VOCAB,
                    context_length=64,
                    hidden_size=64,
                    attention_hidden_size=64,
                    intermediate_size=128,
                    num_hidden_layers=2,
                    **TOKEN_IDS,
                ),
            ),
            mask=False,
        ),
        _text(
            "opt",
            Architecture(
                "OPTModel",
                "OPTConfig",
                dict(
                    TEXT,
                    hidden_size=64,
                    num_hidden_layers=2,
                    num_attention_heads=4,
                    ffn_dim=100,
                    word_embed_proj_dim=64,
                ),
            ),
        ),
        _text(
            "phi",
            Architecture("PhiModel", "PhiConfig", dict(TEXT, **_BERTLIKE)),
            mask=False,
        ),
        _text(
            "falcon",
            Architecture(
                "FalconModel",
                "FalconConfig",
                dict(
                    vocab_size=VOCAB,
                    hidden_size=64,
                    num_hidden_layers=2,
                    num_attention_heads=4,
                    **TOKEN_IDS,
                ),
            ),
            mask=False,
        ),
        _text(
            "convbert",
            Architecture(
                "ConvBertModel",
                "ConvBertConfig",
                dict(TEXT, conv_kernel_size=5, **_BERTLIKE),
            ),
        ),
        _text(
            "bart",
            Architecture(
                "BartModel",
                "BartConfig",
                dict(
                    TEXT,
                    d_model=64,
                    encoder_layers=1,
                    decoder_layers=1,
                    encoder_attention_heads=4,
                    decoder_attention_heads=4,
                    encoder_ffn_dim=100,
                    decoder_ffn_dim=100,
                    decoder_start_token_id=2,
                ),
            ),
        ),
        _model(
            "t5",
            Architecture(
                "T5Model",
                "T5Config",
                _T5,
                exporters=("torchscript",),  # dynamo: no decomposition
            ),
            (
                InputSpec("input_ids", (TOKENS,), "int64", "tokens", VOCAB),
                InputSpec("decoder_input_ids", (TOKENS,), "int64", "tokens", VOCAB),
            ),
        ),
        _model(
            "whisper_encoder",
            Architecture(
                "WhisperModel",
                "WhisperConfig",
                dict(
                    vocab_size=VOCAB,
                    num_mel_bins=16,
                    d_model=64,
                    encoder_layers=2,
                    encoder_attention_heads=4,
                    encoder_ffn_dim=100,
                    decoder_layers=1,
                    decoder_attention_heads=4,
                    decoder_ffn_dim=100,
                    max_source_positions=32,
                    max_target_positions=32,
                    decoder_start_token_id=3,
                    **TOKEN_IDS,
                ),
                submodule="encoder",
            ),
            (InputSpec("input_features", (16, 64)),),
        ),
        _model(
            "wav2vec2",
            Architecture(
                "Wav2Vec2Model",
                "Wav2Vec2Config",
                _SPEECH,
            ),
            (InputSpec("input_values", (800,)),),
        ),
        _model(
            "hubert",
            Architecture(
                "HubertModel",
                "HubertConfig",
                _SPEECH,
            ),
            (InputSpec("input_values", (800,)),),
        ),
        _image(
            "deit",
            Architecture(
                "DeiTModel",
                "DeiTConfig",
                dict(_VIT, intermediate_size=100),
            ),
        ),
        _image(
            "dinov2",
            Architecture(
                "Dinov2Model",
                "Dinov2Config",
                dict(_VIT, mlp_ratio=2),
                ("last_hidden_state", "pooler_output"),
            ),
        ),
        _image(
            "swin",
            Architecture(
                "SwinModel",
                "SwinConfig",
                dict(
                    image_size=IMAGE,
                    patch_size=4,
                    embed_dim=24,
                    depths=[1, 1],
                    num_heads=[2, 4],
                    window_size=4,
                ),
                exporters=("torchscript",),  # dynamo: no decomposition
            ),
        ),
        _image(
            "convnext",
            Architecture("ConvNextModel", "ConvNextConfig", dict(_CNN)),
            size=64,
        ),
        _image(
            "regnet",
            Architecture(
                "RegNetModel",
                "RegNetConfig",
                dict(_CNN, embedding_size=16, groups_width=8),
                ("last_hidden_state", "pooler_output"),
            ),
            size=64,
        ),
        _image(
            "resnet_hf",
            Architecture(
                "ResNetModel",
                "ResNetConfig",
                dict(_CNN, embedding_size=16),
                ("last_hidden_state", "pooler_output"),
            ),
            size=64,
        ),
        _image(
            "mobilevit",
            Architecture(
                "MobileViTModel",
                "MobileViTConfig",
                dict(
                    image_size=64,
                    hidden_sizes=[32, 48, 64],
                    neck_hidden_sizes=[8, 16, 24, 32, 48, 64, 80],
                ),
            ),
            size=64,
        ),
        _image(
            "segformer",
            Architecture(
                "SegformerModel",
                "SegformerConfig",
                dict(
                    num_encoder_blocks=2,
                    depths=[1, 1],
                    sr_ratios=[2, 1],
                    hidden_sizes=[16, 32],
                    num_attention_heads=[1, 2],
                    patch_sizes=[7, 3],
                    strides=[4, 2],
                    mlp_ratios=[2, 2],
                ),
            ),
            size=64,
        ),
        _image(
            "poolformer",
            Architecture("PoolFormerModel", "PoolFormerConfig", dict(_CNN)),
            size=64,
        ),
        _image(
            "mobilenet_v1",
            Architecture(
                "MobileNetV1Model",
                "MobileNetV1Config",
                dict(image_size=64, depth_multiplier=0.25),
                ("last_hidden_state", "pooler_output"),
            ),
            size=64,
        ),
    )
}
