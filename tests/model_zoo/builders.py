"""The zoo's torch models: small, seeded, built from configs (no downloads).

Every builder returns an `nn.Module` in eval mode whose `forward` takes the
model's inputs as named tensor arguments and returns a tuple of tensors (the
ONNX outputs, in order). Random init comes from `torch.manual_seed`, set by
the caller (`model_zoo.export`); normalisation layers get random running
statistics so that folding them is not trivial.
"""

from __future__ import annotations

import torch
from torch import nn

# ---------------------------------------------------------------------------
# transformers models (random init from configs)
# ---------------------------------------------------------------------------


class BertEncoder(nn.Module):
    """`transformers.BertModel`: token ids and an attention mask in."""

    def __init__(self, layers: int, hidden: int, heads: int, intermediate: int):
        super().__init__()
        from transformers import BertConfig, BertModel

        config = BertConfig(
            vocab_size=101,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=intermediate,
            max_position_embeddings=64,
            type_vocab_size=2,
        )
        self.model = BertModel(config).eval()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        return out.last_hidden_state, out.pooler_output


class Gpt2Decoder(nn.Module):
    """`transformers.GPT2Model` (no KV cache): token ids in, causal mask inside."""

    def __init__(self, layers: int, hidden: int, heads: int):
        super().__init__()
        from transformers import GPT2Config, GPT2Model

        config = GPT2Config(
            vocab_size=101,
            n_positions=64,
            n_embd=hidden,
            n_layer=layers,
            n_head=heads,
            use_cache=False,
            bos_token_id=0,
            eos_token_id=0,
        )
        self.model = GPT2Model(config).eval()

    def forward(self, input_ids: torch.Tensor):
        return (self.model(input_ids=input_ids).last_hidden_state,)


class VitEncoder(nn.Module):
    """`transformers.ViTModel`: patch embedding (a strided conv) + encoder."""

    def __init__(
        self, layers: int, hidden: int, heads: int, intermediate: int, image: int
    ):
        super().__init__()
        from transformers import ViTConfig, ViTModel

        config = ViTConfig(
            image_size=image,
            patch_size=8,
            num_channels=3,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=intermediate,
        )
        self.model = ViTModel(config).eval()

    def forward(self, pixel_values: torch.Tensor):
        out = self.model(pixel_values=pixel_values)
        return out.last_hidden_state, out.pooler_output


class EfficientNetEncoder(nn.Module):
    """`transformers.EfficientNetModel`: its pooler is AvgPool2d(kernel =
    hidden_dim, ceil_mode) on a map smaller than the kernel (the spatial
    mean), as every Hugging Face EfficientNet export has."""

    def __init__(self, image: int, hidden: int):
        super().__init__()
        from transformers import EfficientNetConfig, EfficientNetModel

        config = EfficientNetConfig(
            image_size=image,
            width_coefficient=0.25,
            depth_coefficient=0.25,
            hidden_dim=hidden,
        )
        self.model = randomize_norms(EfficientNetModel(config).eval())

    def forward(self, pixel_values: torch.Tensor):
        out = self.model(pixel_values=pixel_values)
        return out.last_hidden_state, out.pooler_output


# ---------------------------------------------------------------------------
# Convolutional models written here (torchvision is not installed)
# ---------------------------------------------------------------------------


def randomize_norms(module: nn.Module) -> nn.Module:
    """Seeded non-trivial running statistics and affine parameters for every
    BatchNorm (the defaults, mean 0 and variance 1, would fold to nothing)."""
    for norm in module.modules():
        if isinstance(norm, nn.BatchNorm2d | nn.BatchNorm3d):
            with torch.no_grad():
                norm.running_mean.normal_(0.0, 0.1)
                norm.running_var.uniform_(0.5, 1.5)
                norm.weight.uniform_(0.5, 1.5)
                norm.bias.normal_(0.0, 0.1)
    return module.eval()


def make_divisible(value: float, divisor: int = 8) -> int:
    """MobileNet's channel rounding: the nearest multiple of `divisor`, at
    least `divisor`, never below 90% of `value`."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def conv_bn(cin: int, cout: int, kernel: int, stride: int, groups: int = 1):
    """Conv (no bias) + BatchNorm."""
    return [
        nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
    ]


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expand, 3x3 depthwise, 1x1 linear projection."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        layers: list[nn.Module] = []
        if expand != 1:
            layers += [*conv_bn(cin, hidden, 1, 1), nn.ReLU6()]
        layers += [*conv_bn(hidden, hidden, 3, stride, groups=hidden), nn.ReLU6()]
        layers += conv_bn(hidden, cout, 1, 1)
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.residual else self.body(x)


MOBILENET_V2_BLOCKS = (
    # expansion, channels, repeats, first stride
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
)


class MobileNetV2(nn.Module):
    """MobileNetV2 (Sandler et al. 2018) with a width multiplier."""

    def __init__(self, width: float = 0.5, classes: int = 10):
        super().__init__()
        channels = make_divisible(32 * width)
        layers: list[nn.Module] = [*conv_bn(3, channels, 3, 2), nn.ReLU6()]
        for expand, base, repeats, stride in MOBILENET_V2_BLOCKS:
            out = make_divisible(base * width)
            for index in range(repeats):
                step = stride if index == 0 else 1
                layers.append(InvertedResidual(channels, out, step, expand))
                channels = out
        last = make_divisible(1280 * max(1.0, width))
        layers += [*conv_bn(channels, last, 1, 1), nn.ReLU6()]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(last, classes)
        randomize_norms(self)

    def forward(self, image: torch.Tensor):
        pooled = self.features(image).mean(dim=(2, 3))
        return (self.classifier(pooled),)


def hard_sigmoid(x: torch.Tensor) -> torch.Tensor:
    """relu6(x + 3) / 6, written out (exports as Add, Clip, Div)."""
    return nn.functional.relu6(x + 3.0) / 6.0


class HardSwish(nn.Module):
    """x * hard_sigmoid(x) (MobileNetV3's activation), written out."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * hard_sigmoid(x)


class SqueezeExcite(nn.Module):
    """Channel attention: global mean, 1x1 reduce + ReLU, 1x1 expand +
    hard sigmoid, times the input."""

    def __init__(self, channels: int):
        super().__init__()
        squeezed = make_divisible(channels / 4)
        self.reduce = nn.Conv2d(channels, squeezed, 1)
        self.expand = nn.Conv2d(squeezed, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = torch.relu(self.reduce(x.mean(dim=(2, 3), keepdim=True)))
        return x * hard_sigmoid(self.expand(scale))


class MobileNetV3Block(nn.Module):
    """MobileNetV3's bneck: 1x1 expand, kxk depthwise, optional SE, 1x1 project."""

    def __init__(
        self,
        cin: int,
        kernel: int,
        hidden: int,
        cout: int,
        se: bool,
        hs: bool,
        stride: int,
    ):
        super().__init__()
        act = HardSwish if hs else nn.ReLU
        layers: list[nn.Module] = []
        if hidden != cin:
            layers += [*conv_bn(cin, hidden, 1, 1), act()]
        layers += [*conv_bn(hidden, hidden, kernel, stride, groups=hidden), act()]
        if se:
            layers.append(SqueezeExcite(hidden))
        layers += conv_bn(hidden, cout, 1, 1)
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.residual else self.body(x)


MOBILENET_V3_SMALL_BLOCKS = (
    # kernel, expansion channels, output channels, SE, hard swish, stride
    (3, 16, 16, True, False, 2),
    (3, 72, 24, False, False, 2),
    (3, 88, 24, False, False, 1),
    (5, 96, 40, True, True, 2),
    (5, 240, 40, True, True, 1),
    (5, 240, 40, True, True, 1),
    (5, 120, 48, True, True, 1),
    (5, 144, 48, True, True, 1),
    (5, 288, 96, True, True, 2),
    (5, 576, 96, True, True, 1),
    (5, 576, 96, True, True, 1),
)


class MobileNetV3Small(nn.Module):
    """MobileNetV3-Small (Howard et al. 2019) with a width multiplier."""

    def __init__(self, width: float = 0.5, classes: int = 10):
        super().__init__()
        channels = make_divisible(16 * width)
        layers: list[nn.Module] = [*conv_bn(3, channels, 3, 2), HardSwish()]
        for kernel, hidden, out, se, hs, stride in MOBILENET_V3_SMALL_BLOCKS:
            hidden, out = make_divisible(hidden * width), make_divisible(out * width)
            layers.append(
                MobileNetV3Block(channels, kernel, hidden, out, se, hs, stride)
            )
            channels = out
        last = make_divisible(576 * width)
        layers += [*conv_bn(channels, last, 1, 1), HardSwish()]
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(
            nn.Linear(last, 1024), HardSwish(), nn.Linear(1024, classes)
        )
        randomize_norms(self)

    def forward(self, image: torch.Tensor):
        pooled = self.features(image).mean(dim=(2, 3))
        return (self.head(pooled),)


class ConvBnSilu(nn.Sequential):
    """YOLOv5's `Conv`: conv + BatchNorm + SiLU."""

    def __init__(self, cin: int, cout: int, kernel: int = 1, stride: int = 1):
        super().__init__(*conv_bn(cin, cout, kernel, stride), nn.SiLU())


class YoloHead(nn.Module):
    """A YOLOv5-style detector: a strided backbone, a top-down neck (one
    nearest x2 upsample by scale, one bilinear upsample to a size, each
    concatenated with the finer map) and a detection layer per scale that
    splits its output into box centre, box size and scores and decodes them
    against an anchor grid."""

    def __init__(self, classes: int = 3, anchors: int = 3, image: int = 64):
        super().__init__()
        self.outputs = 5 + classes
        self.anchors = anchors
        self.stem = ConvBnSilu(3, 8, 3, 2)  # /2
        self.down1 = ConvBnSilu(8, 16, 3, 2)  # /4
        self.down2 = ConvBnSilu(16, 24, 3, 2)  # /8
        self.down3 = ConvBnSilu(24, 32, 3, 2)  # /16
        self.lateral = ConvBnSilu(32, 24)
        self.merge1 = ConvBnSilu(48, 16, 3)
        self.merge2 = ConvBnSilu(32, 16, 3)
        self.detect = nn.ModuleList(
            nn.Conv2d(c, anchors * self.outputs, 1) for c in (16, 16, 32)
        )
        self.strides = (4, 8, 16)
        self.sizes = tuple(image // s for s in self.strides)
        for index, size in enumerate(self.sizes):
            steps = torch.arange(size)
            ys, xs = torch.meshgrid(steps, steps, indexing="ij")
            grid = torch.stack((xs, ys), -1).float().view(1, 1, size, size, 2)
            self.register_buffer(f"grid{index}", grid)
            wh = torch.rand(1, anchors, 1, 1, 2) * 4 * self.strides[index] + 2
            self.register_buffer(f"anchor{index}", wh)
        randomize_norms(self)

    def decode(self, index: int, features: torch.Tensor) -> torch.Tensor:
        batch, _, height, width = features.shape
        raw = self.detect[index](features)
        raw = raw.view(batch, self.anchors, self.outputs, height, width)
        raw = raw.permute(0, 1, 3, 4, 2).sigmoid()
        xy, wh, scores = raw.split((2, 2, self.outputs - 4), dim=4)
        stride = self.strides[index]
        xy = (xy * 2 - 0.5 + getattr(self, f"grid{index}")) * stride
        wh = (wh * 2) ** 2 * getattr(self, f"anchor{index}")
        boxes = torch.cat((xy, wh, scores), 4)
        return boxes.view(batch, -1, self.outputs)

    def forward(self, image: torch.Tensor):
        p2 = self.down1(self.stem(image))
        p3 = self.down2(p2)
        p4 = self.down3(p3)
        top = self.lateral(p4)
        up3 = nn.functional.interpolate(top, scale_factor=2.0, mode="nearest")
        n3 = self.merge1(torch.cat((up3, p3), 1))
        up2 = nn.functional.interpolate(
            n3, size=p2.shape[2:], mode="bilinear", align_corners=False
        )
        n2 = self.merge2(torch.cat((up2, p2), 1))
        levels = (n2, n3, p4)
        detections = torch.cat([self.decode(i, f) for i, f in enumerate(levels)], 1)
        return (detections,)


class VideoNet(nn.Module):
    """A small 3-D CNN (video, medical volumes): Conv3d + BatchNorm3d + ReLU
    twice (padded, then strided and grouped), each followed by a 3-D pool
    (a padded ceil-mode max pool, a padded average pool not counting the
    pads), a strided grouped ConvTranspose3d upsampling H and W, a global
    3-D average pool and a linear head."""

    def __init__(self, channels: int = 3, classes: int = 5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(channels, 16, 3, padding=1),
            nn.BatchNorm3d(16),
            nn.ReLU(),
            nn.MaxPool3d(
                (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), ceil_mode=True
            ),
            nn.Conv3d(16, 20, (3, 3, 2), stride=(1, 2, 2), padding=(1, 0, 1), groups=4),
            nn.BatchNorm3d(20),
            nn.ReLU(),
            nn.AvgPool3d(2, stride=(1, 2, 1), padding=1, count_include_pad=False),
            nn.ConvTranspose3d(
                20, 12, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1),
                output_padding=(0, 1, 0), groups=2,
            ),
        )  # fmt: skip
        randomize_norms(self.features)
        self.head = nn.Linear(12, classes)
        self.eval()

    def forward(self, clip: torch.Tensor):
        pooled = self.features(clip).mean(dim=(2, 3, 4))
        return (self.head(pooled),)


class Bottleneck(nn.Module):
    """YOLOv8's bottleneck: two 3x3 convs and a shortcut."""

    def __init__(self, channels: int):
        super().__init__()
        self.cv1 = ConvBnSilu(channels, channels, 3)
        self.cv2 = ConvBnSilu(channels, channels, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.cv2(self.cv1(x))


class C2f(nn.Module):
    """YOLOv8's C2f: a 1x1 conv split in two along C, bottlenecks chained on
    the second half, every piece concatenated along C and mixed by a 1x1."""

    def __init__(self, cin: int, cout: int, blocks: int = 1):
        super().__init__()
        self.hidden = cout // 2
        self.cv1 = ConvBnSilu(cin, 2 * self.hidden)
        self.cv2 = ConvBnSilu((2 + blocks) * self.hidden, cout)
        self.blocks = nn.ModuleList(Bottleneck(self.hidden) for _ in range(blocks))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pieces = list(self.cv1(x).split((self.hidden, self.hidden), 1))
        pieces.extend(block(pieces[-1]) for block in self.blocks)
        return self.cv2(torch.cat(pieces, 1))


class Sppf(nn.Module):
    """YOLOv8's SPPF: three chained 5x5 max pools concatenated along C."""

    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.cv1 = ConvBnSilu(cin, cin // 2)
        self.cv2 = ConvBnSilu(cin // 2 * 4, cout)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = [self.cv1(x)]
        y.extend(self.pool(y[-1]) for _ in range(3))
        return self.cv2(torch.cat(y, 1))


class Yolov8Detector(nn.Module):
    """A YOLOv8n-shaped detector: C2f backbone, SPPF, a top-down and
    bottom-up neck (nearest x2 upsamples concatenated along C) and the
    anchor-free head: per scale a box branch (4 x 16 distribution bins) and
    a class branch concatenated along C, flattened and concatenated over the
    scales, split into boxes and classes; the boxes' distributions decoded
    by DFL (reshape, transpose, softmax, a 1x1 conv with weights 0..15)
    against the anchor points."""

    def __init__(self, classes: int = 80, image: int = 64, bins: int = 16):
        super().__init__()
        self.classes, self.bins = classes, bins
        self.stem = ConvBnSilu(3, 16, 3, 2)  # /2
        self.down1 = ConvBnSilu(16, 32, 3, 2)  # /4
        self.c2f1 = C2f(32, 32)
        self.down2 = ConvBnSilu(32, 64, 3, 2)  # /8
        self.c2f2 = C2f(64, 64, 2)
        self.down3 = ConvBnSilu(64, 96, 3, 2)  # /16
        self.c2f3 = C2f(96, 96)
        self.down4 = ConvBnSilu(96, 128, 3, 2)  # /32
        self.c2f4 = C2f(128, 128)
        self.sppf = Sppf(128, 128)
        self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
        self.top1 = C2f(128 + 96, 96)
        self.top2 = C2f(96 + 64, 64)
        self.bottom1 = ConvBnSilu(64, 64, 3, 2)
        self.merge1 = C2f(64 + 96, 96)
        self.bottom2 = ConvBnSilu(96, 96, 3, 2)
        self.merge2 = C2f(96 + 128, 128)
        box_width, class_width = 4 * bins, max(64, min(classes, 100))
        self.box = nn.ModuleList(
            nn.Sequential(
                ConvBnSilu(c, box_width, 3),
                ConvBnSilu(box_width, box_width, 3),
                nn.Conv2d(box_width, 4 * bins, 1),
            )
            for c in (64, 96, 128)
        )
        self.cls = nn.ModuleList(
            nn.Sequential(
                ConvBnSilu(c, class_width, 3),
                ConvBnSilu(class_width, class_width, 3),
                nn.Conv2d(class_width, classes, 1),
            )
            for c in (64, 96, 128)
        )
        self.dfl = nn.Conv2d(bins, 1, 1, bias=False)
        self.dfl.weight.data[:] = torch.arange(bins, dtype=torch.float).view(
            1, bins, 1, 1
        )
        points, strides = [], []
        for stride in (8, 16, 32):
            size = image // stride
            steps = torch.arange(size, dtype=torch.float) + 0.5
            ys, xs = torch.meshgrid(steps, steps, indexing="ij")
            points.append(torch.stack((xs, ys), -1).view(-1, 2))
            strides.append(torch.full((size * size, 1), float(stride)))
        self.register_buffer("anchors", torch.cat(points).transpose(0, 1)[None])
        self.register_buffer("strides", torch.cat(strides).transpose(0, 1))
        randomize_norms(self)

    def forward(self, image: torch.Tensor):
        p3 = self.c2f2(self.down2(self.c2f1(self.down1(self.stem(image)))))
        p4 = self.c2f3(self.down3(p3))
        p5 = self.sppf(self.c2f4(self.down4(p4)))
        t4 = self.top1(torch.cat((self.up(p5), p4), 1))
        n3 = self.top2(torch.cat((self.up(t4), p3), 1))
        n4 = self.merge1(torch.cat((self.bottom1(n3), t4), 1))
        n5 = self.merge2(torch.cat((self.bottom2(n4), p5), 1))
        batch = image.shape[0]
        outputs = 4 * self.bins + self.classes
        levels = [
            torch.cat((box(x), cls(x)), 1).view(batch, outputs, -1)
            for box, cls, x in zip(self.box, self.cls, (n3, n4, n5), strict=True)
        ]
        boxes, scores = torch.cat(levels, 2).split((4 * self.bins, self.classes), 1)
        anchors = boxes.shape[2]
        spread = boxes.view(batch, 4, self.bins, anchors).transpose(2, 1)
        distance = self.dfl(spread.softmax(1)).view(batch, 4, anchors)
        left_top, right_bottom = distance.chunk(2, 1)
        top_left = self.anchors - left_top
        bottom_right = self.anchors + right_bottom
        centre, size = (top_left + bottom_right) / 2, bottom_right - top_left
        decoded = torch.cat((centre, size), 1) * self.strides
        return (torch.cat((decoded, scores.sigmoid()), 1),)


class CrnnRecognizer(nn.Module):
    """A CRNN text recogniser: a conv stack that pools the height to 1, the
    width as the sequence (squeeze, permute to time-major), a 2-layer
    bidirectional LSTM and a per-step classifier with log-softmax (CTC)."""

    def __init__(self, classes: int = 37, hidden: int = 48):
        super().__init__()
        layers: list[nn.Module] = []
        for cin, cout, pool in (
            (3, 16, (2, 2)),
            (16, 32, (2, 2)),
            (32, 64, (2, 1)),
            (64, 64, (2, 1)),
            (64, 96, (2, 1)),
        ):
            layers += [*conv_bn(cin, cout, 3, 1), nn.ReLU(), nn.MaxPool2d(pool, pool)]
        self.features = nn.Sequential(*layers)
        self.lstm = nn.LSTM(96, hidden, num_layers=2, bidirectional=True)
        self.classifier = nn.Linear(2 * hidden, classes)
        randomize_norms(self)

    def forward(self, image: torch.Tensor):
        columns = self.features(image).squeeze(2).permute(2, 0, 1)
        states, _ = self.lstm(columns)
        return (self.classifier(states).log_softmax(2),)


# ---------------------------------------------------------------------------
# Recurrent and control-flow models
# ---------------------------------------------------------------------------


class LstmTagger(nn.Module):
    """A 2-layer LSTM over a sequence, a linear tagger per step, the last
    hidden state as a second output."""

    def __init__(self, features: int = 17, hidden: int = 33, tags: int = 5):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, num_layers=2, batch_first=True)
        self.tagger = nn.Linear(hidden, tags)

    def forward(self, sequence: torch.Tensor):
        states, (last_hidden, _) = self.lstm(sequence)
        return self.tagger(states), last_hidden


class GruRnnEncoder(nn.Module):
    """A bidirectional GRU followed by a tanh RNN (the other two ONNX recurrent
    ops), mean over time."""

    def __init__(self, features: int = 17, hidden: int = 20):
        super().__init__()
        self.gru = nn.GRU(features, hidden, batch_first=True, bidirectional=True)
        self.rnn = nn.RNN(2 * hidden, hidden, batch_first=True)

    def forward(self, sequence: torch.Tensor):
        states, _ = self.gru(sequence)
        encoded, _ = self.rnn(states)
        return (encoded.mean(dim=1),)


class BranchingHead(nn.Module):
    """An `If` on a data-dependent condition (`torch.cond`): which of two
    small networks runs depends on the sign of the input's mean."""

    def __init__(self, features: int = 17):
        super().__init__()
        self.then_layer = nn.Linear(features, features)
        self.else_layer = nn.Linear(features, features)

    def forward(self, x: torch.Tensor):
        def positive(x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.then_layer(x)) * 2.0

        def negative(x: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(self.else_layer(x)) - x

        return (torch.cond(x.mean() > 0, positive, negative, (x,)),)


class IteratedLayer(nn.Module):
    """A `Loop` (`torch.while_loop`): a tanh layer applied a fixed number of
    times, the trip counter carried as a loop variable."""

    def __init__(self, features: int = 17, steps: int = 4):
        super().__init__()
        self.layer = nn.Linear(features, features)
        self.steps = steps

    def forward(self, x: torch.Tensor):
        from torch._higher_order_ops.while_loop import while_loop

        def cond(step: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return step < self.steps

        def body(step: torch.Tensor, y: torch.Tensor):
            return step + 1, torch.tanh(self.layer(y)) + 0.5 * y

        _, y = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), x))
        return (y,)


class MelFrontEnd(nn.Module):
    """A log-mel spectrogram front end and a small conv encoder: a framed
    STFT as a strided Conv1d (cos and sin rows), power, a mel filterbank
    matmul, 10 log10, then `clamp(db, min=db.max() - 80)` (the top-80-dB
    floor of torchaudio's AmplitudeToDB / Whisper): a Clip whose minimum is
    computed from the data, one run-time value in an otherwise static graph.
    """

    def __init__(self, n_fft: int = 64, hop: int = 16, mels: int = 20):
        super().__init__()
        bins = n_fft // 2 + 1
        time = torch.arange(n_fft, dtype=torch.float32)
        freq = torch.arange(bins, dtype=torch.float32)[:, None]
        window = torch.hann_window(n_fft, periodic=True)
        angle = 2 * torch.pi * freq * time / n_fft
        kernels = torch.cat([torch.cos(angle), torch.sin(angle)]) * window
        self.stft = nn.Conv1d(1, 2 * bins, n_fft, stride=hop, bias=False)
        self.stft.weight.data = kernels[:, None, :]
        self.stft.weight.requires_grad_(False)
        self.bins = bins
        self.mel = nn.Parameter(torch.rand(mels, bins) / bins, requires_grad=False)
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(8, 8, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.head = nn.Linear(8, 5)

    def forward(self, audio: torch.Tensor):
        frames = self.stft(audio)  # [B, 2 * bins, T]
        real, imag = frames[:, : self.bins], frames[:, self.bins :]
        power = real * real + imag * imag
        mel = torch.matmul(self.mel, power)  # [B, mels, T]
        db = 10.0 * torch.log10(torch.clamp(mel, min=1e-10))
        db = torch.clamp(db, min=db.max() - 80.0)
        features = self.encoder(db[:, None])  # [B, 8, mels / 2, T / 2]
        return (self.head(features.mean(dim=(2, 3))), db)
