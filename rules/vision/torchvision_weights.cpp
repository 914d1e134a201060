// PTL109's table: for each torchvision model builder, the weights its own deprecation shim
// (torchvision/models/_utils.py `handle_legacy_interface`) substitutes for `pretrained=True` and
// `pretrained_backbone=True`, copied from each builder's `@handle_legacy_interface(...)` decorator
// in torchvision 0.14.1, plus the builders added since then with the same decorator (0.15's
// `video.swin3d_t` / `swin3d_s` / `swin3d_b`, torchvision/models/video/swin_transformer.py; no
// later release added a builder with a legacy interface). A builder that a file calls exists in
// the torchvision it runs with, and so does its weights enum: the entries need no version gate.
#include "rules/vision/torchvision_weights.h"

#include <array>
#include <string>
#include <unordered_map>

namespace ptlint::rules::vision {
namespace {

// builder (as exported), builder (where defined), weights for pretrained=True ("None": no
// weights exist, "": depends on other arguments), weights when `quantize=True` (quantized
// builders), weights for pretrained_backbone=True.
constexpr std::array<Builder, 123> kBuilders{{
    {"torchvision.models.alexnet", "torchvision.models.alexnet.alexnet", "torchvision.models.AlexNet_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.convnext_base", "torchvision.models.convnext.convnext_base", "torchvision.models.ConvNeXt_Base_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.convnext_large", "torchvision.models.convnext.convnext_large", "torchvision.models.ConvNeXt_Large_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.convnext_small", "torchvision.models.convnext.convnext_small", "torchvision.models.ConvNeXt_Small_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.convnext_tiny", "torchvision.models.convnext.convnext_tiny", "torchvision.models.ConvNeXt_Tiny_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.densenet121", "torchvision.models.densenet.densenet121", "torchvision.models.DenseNet121_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.densenet161", "torchvision.models.densenet.densenet161", "torchvision.models.DenseNet161_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.densenet169", "torchvision.models.densenet.densenet169", "torchvision.models.DenseNet169_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.densenet201", "torchvision.models.densenet.densenet201", "torchvision.models.DenseNet201_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn", "torchvision.models.detection.faster_rcnn.fasterrcnn_mobilenet_v3_large_320_fpn", "torchvision.models.detection.FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.COCO_V1", "", "torchvision.models.MobileNet_V3_Large_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.fasterrcnn_mobilenet_v3_large_fpn", "torchvision.models.detection.faster_rcnn.fasterrcnn_mobilenet_v3_large_fpn", "torchvision.models.detection.FasterRCNN_MobileNet_V3_Large_FPN_Weights.COCO_V1", "", "torchvision.models.MobileNet_V3_Large_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.fasterrcnn_resnet50_fpn", "torchvision.models.detection.faster_rcnn.fasterrcnn_resnet50_fpn", "torchvision.models.detection.FasterRCNN_ResNet50_FPN_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.fasterrcnn_resnet50_fpn_v2", "torchvision.models.detection.faster_rcnn.fasterrcnn_resnet50_fpn_v2", "torchvision.models.detection.FasterRCNN_ResNet50_FPN_V2_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.fcos_resnet50_fpn", "torchvision.models.detection.fcos.fcos_resnet50_fpn", "torchvision.models.detection.FCOS_ResNet50_FPN_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.keypointrcnn_resnet50_fpn", "torchvision.models.detection.keypoint_rcnn.keypointrcnn_resnet50_fpn", "torchvision.models.detection.KeypointRCNN_ResNet50_FPN_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.maskrcnn_resnet50_fpn", "torchvision.models.detection.mask_rcnn.maskrcnn_resnet50_fpn", "torchvision.models.detection.MaskRCNN_ResNet50_FPN_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.maskrcnn_resnet50_fpn_v2", "torchvision.models.detection.mask_rcnn.maskrcnn_resnet50_fpn_v2", "torchvision.models.detection.MaskRCNN_ResNet50_FPN_V2_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.mobilenet_backbone", "torchvision.models.detection.backbone_utils.mobilenet_backbone", "", "", ""},
    {"torchvision.models.detection.resnet_fpn_backbone", "torchvision.models.detection.backbone_utils.resnet_fpn_backbone", "", "", ""},
    {"torchvision.models.detection.retinanet_resnet50_fpn", "torchvision.models.detection.retinanet.retinanet_resnet50_fpn", "torchvision.models.detection.RetinaNet_ResNet50_FPN_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.retinanet_resnet50_fpn_v2", "torchvision.models.detection.retinanet.retinanet_resnet50_fpn_v2", "torchvision.models.detection.RetinaNet_ResNet50_FPN_V2_Weights.COCO_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.detection.ssd300_vgg16", "torchvision.models.detection.ssd.ssd300_vgg16", "torchvision.models.detection.SSD300_VGG16_Weights.COCO_V1", "", "torchvision.models.VGG16_Weights.IMAGENET1K_FEATURES"},
    {"torchvision.models.detection.ssdlite320_mobilenet_v3_large", "torchvision.models.detection.ssdlite.ssdlite320_mobilenet_v3_large", "torchvision.models.detection.SSDLite320_MobileNet_V3_Large_Weights.COCO_V1", "", "torchvision.models.MobileNet_V3_Large_Weights.IMAGENET1K_V1"},
    {"torchvision.models.efficientnet_b0", "torchvision.models.efficientnet.efficientnet_b0", "torchvision.models.EfficientNet_B0_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_b1", "torchvision.models.efficientnet.efficientnet_b1", "torchvision.models.EfficientNet_B1_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_b2", "torchvision.models.efficientnet.efficientnet_b2", "torchvision.models.EfficientNet_B2_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_b3", "torchvision.models.efficientnet.efficientnet_b3", "torchvision.models.EfficientNet_B3_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_b4", "torchvision.models.efficientnet.efficientnet_b4", "torchvision.models.EfficientNet_B4_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_b5", "torchvision.models.efficientnet.efficientnet_b5", "torchvision.models.EfficientNet_B5_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_b6", "torchvision.models.efficientnet.efficientnet_b6", "torchvision.models.EfficientNet_B6_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_b7", "torchvision.models.efficientnet.efficientnet_b7", "torchvision.models.EfficientNet_B7_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_v2_l", "torchvision.models.efficientnet.efficientnet_v2_l", "torchvision.models.EfficientNet_V2_L_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_v2_m", "torchvision.models.efficientnet.efficientnet_v2_m", "torchvision.models.EfficientNet_V2_M_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.efficientnet_v2_s", "torchvision.models.efficientnet.efficientnet_v2_s", "torchvision.models.EfficientNet_V2_S_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.googlenet", "torchvision.models.googlenet.googlenet", "torchvision.models.GoogLeNet_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.inception_v3", "torchvision.models.inception.inception_v3", "torchvision.models.Inception_V3_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.maxvit_t", "torchvision.models.maxvit.maxvit_t", "torchvision.models.MaxVit_T_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.mnasnet0_5", "torchvision.models.mnasnet.mnasnet0_5", "torchvision.models.MNASNet0_5_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.mnasnet0_75", "torchvision.models.mnasnet.mnasnet0_75", "torchvision.models.MNASNet0_75_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.mnasnet1_0", "torchvision.models.mnasnet.mnasnet1_0", "torchvision.models.MNASNet1_0_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.mnasnet1_3", "torchvision.models.mnasnet.mnasnet1_3", "torchvision.models.MNASNet1_3_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.mobilenet_v2", "torchvision.models.mobilenetv2.mobilenet_v2", "torchvision.models.MobileNet_V2_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.mobilenet_v3_large", "torchvision.models.mobilenetv3.mobilenet_v3_large", "torchvision.models.MobileNet_V3_Large_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.mobilenet_v3_small", "torchvision.models.mobilenetv3.mobilenet_v3_small", "torchvision.models.MobileNet_V3_Small_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.optical_flow.raft_large", "torchvision.models.optical_flow.raft.raft_large", "torchvision.models.optical_flow.Raft_Large_Weights.C_T_SKHT_V2", "", ""},
    {"torchvision.models.optical_flow.raft_small", "torchvision.models.optical_flow.raft.raft_small", "torchvision.models.optical_flow.Raft_Small_Weights.C_T_V2", "", ""},
    {"torchvision.models.quantization.googlenet", "torchvision.models.quantization.googlenet.googlenet", "torchvision.models.GoogLeNet_Weights.IMAGENET1K_V1", "torchvision.models.quantization.GoogLeNet_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.inception_v3", "torchvision.models.quantization.inception.inception_v3", "torchvision.models.Inception_V3_Weights.IMAGENET1K_V1", "torchvision.models.quantization.Inception_V3_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.mobilenet_v2", "torchvision.models.quantization.mobilenetv2.mobilenet_v2", "torchvision.models.MobileNet_V2_Weights.IMAGENET1K_V1", "torchvision.models.quantization.MobileNet_V2_QuantizedWeights.IMAGENET1K_QNNPACK_V1", ""},
    {"torchvision.models.quantization.mobilenet_v3_large", "torchvision.models.quantization.mobilenetv3.mobilenet_v3_large", "torchvision.models.MobileNet_V3_Large_Weights.IMAGENET1K_V1", "torchvision.models.quantization.MobileNet_V3_Large_QuantizedWeights.IMAGENET1K_QNNPACK_V1", ""},
    {"torchvision.models.quantization.resnet18", "torchvision.models.quantization.resnet.resnet18", "torchvision.models.ResNet18_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ResNet18_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.resnet50", "torchvision.models.quantization.resnet.resnet50", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ResNet50_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.resnext101_32x8d", "torchvision.models.quantization.resnet.resnext101_32x8d", "torchvision.models.ResNeXt101_32X8D_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ResNeXt101_32X8D_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.resnext101_64x4d", "torchvision.models.quantization.resnet.resnext101_64x4d", "torchvision.models.ResNeXt101_64X4D_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ResNeXt101_64X4D_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.shufflenet_v2_x0_5", "torchvision.models.quantization.shufflenetv2.shufflenet_v2_x0_5", "torchvision.models.ShuffleNet_V2_X0_5_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ShuffleNet_V2_X0_5_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.shufflenet_v2_x1_0", "torchvision.models.quantization.shufflenetv2.shufflenet_v2_x1_0", "torchvision.models.ShuffleNet_V2_X1_0_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ShuffleNet_V2_X1_0_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.shufflenet_v2_x1_5", "torchvision.models.quantization.shufflenetv2.shufflenet_v2_x1_5", "torchvision.models.ShuffleNet_V2_X1_5_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ShuffleNet_V2_X1_5_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.quantization.shufflenet_v2_x2_0", "torchvision.models.quantization.shufflenetv2.shufflenet_v2_x2_0", "torchvision.models.ShuffleNet_V2_X2_0_Weights.IMAGENET1K_V1", "torchvision.models.quantization.ShuffleNet_V2_X2_0_QuantizedWeights.IMAGENET1K_FBGEMM_V1", ""},
    {"torchvision.models.regnet_x_16gf", "torchvision.models.regnet.regnet_x_16gf", "torchvision.models.RegNet_X_16GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_x_1_6gf", "torchvision.models.regnet.regnet_x_1_6gf", "torchvision.models.RegNet_X_1_6GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_x_32gf", "torchvision.models.regnet.regnet_x_32gf", "torchvision.models.RegNet_X_32GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_x_3_2gf", "torchvision.models.regnet.regnet_x_3_2gf", "torchvision.models.RegNet_X_3_2GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_x_400mf", "torchvision.models.regnet.regnet_x_400mf", "torchvision.models.RegNet_X_400MF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_x_800mf", "torchvision.models.regnet.regnet_x_800mf", "torchvision.models.RegNet_X_800MF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_x_8gf", "torchvision.models.regnet.regnet_x_8gf", "torchvision.models.RegNet_X_8GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_y_128gf", "torchvision.models.regnet.regnet_y_128gf", "None", "", ""},
    {"torchvision.models.regnet_y_16gf", "torchvision.models.regnet.regnet_y_16gf", "torchvision.models.RegNet_Y_16GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_y_1_6gf", "torchvision.models.regnet.regnet_y_1_6gf", "torchvision.models.RegNet_Y_1_6GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_y_32gf", "torchvision.models.regnet.regnet_y_32gf", "torchvision.models.RegNet_Y_32GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_y_3_2gf", "torchvision.models.regnet.regnet_y_3_2gf", "torchvision.models.RegNet_Y_3_2GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_y_400mf", "torchvision.models.regnet.regnet_y_400mf", "torchvision.models.RegNet_Y_400MF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_y_800mf", "torchvision.models.regnet.regnet_y_800mf", "torchvision.models.RegNet_Y_800MF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.regnet_y_8gf", "torchvision.models.regnet.regnet_y_8gf", "torchvision.models.RegNet_Y_8GF_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnet101", "torchvision.models.resnet.resnet101", "torchvision.models.ResNet101_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnet152", "torchvision.models.resnet.resnet152", "torchvision.models.ResNet152_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnet18", "torchvision.models.resnet.resnet18", "torchvision.models.ResNet18_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnet34", "torchvision.models.resnet.resnet34", "torchvision.models.ResNet34_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnet50", "torchvision.models.resnet.resnet50", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnext101_32x8d", "torchvision.models.resnet.resnext101_32x8d", "torchvision.models.ResNeXt101_32X8D_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnext101_64x4d", "torchvision.models.resnet.resnext101_64x4d", "torchvision.models.ResNeXt101_64X4D_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.resnext50_32x4d", "torchvision.models.resnet.resnext50_32x4d", "torchvision.models.ResNeXt50_32X4D_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.segmentation.deeplabv3_mobilenet_v3_large", "torchvision.models.segmentation.deeplabv3.deeplabv3_mobilenet_v3_large", "torchvision.models.segmentation.DeepLabV3_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1", "", "torchvision.models.MobileNet_V3_Large_Weights.IMAGENET1K_V1"},
    {"torchvision.models.segmentation.deeplabv3_resnet101", "torchvision.models.segmentation.deeplabv3.deeplabv3_resnet101", "torchvision.models.segmentation.DeepLabV3_ResNet101_Weights.COCO_WITH_VOC_LABELS_V1", "", "torchvision.models.ResNet101_Weights.IMAGENET1K_V1"},
    {"torchvision.models.segmentation.deeplabv3_resnet50", "torchvision.models.segmentation.deeplabv3.deeplabv3_resnet50", "torchvision.models.segmentation.DeepLabV3_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.segmentation.fcn_resnet101", "torchvision.models.segmentation.fcn.fcn_resnet101", "torchvision.models.segmentation.FCN_ResNet101_Weights.COCO_WITH_VOC_LABELS_V1", "", "torchvision.models.ResNet101_Weights.IMAGENET1K_V1"},
    {"torchvision.models.segmentation.fcn_resnet50", "torchvision.models.segmentation.fcn.fcn_resnet50", "torchvision.models.segmentation.FCN_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1", "", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"},
    {"torchvision.models.segmentation.lraspp_mobilenet_v3_large", "torchvision.models.segmentation.lraspp.lraspp_mobilenet_v3_large", "torchvision.models.segmentation.LRASPP_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1", "", "torchvision.models.MobileNet_V3_Large_Weights.IMAGENET1K_V1"},
    {"torchvision.models.shufflenet_v2_x0_5", "torchvision.models.shufflenetv2.shufflenet_v2_x0_5", "torchvision.models.ShuffleNet_V2_X0_5_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.shufflenet_v2_x1_0", "torchvision.models.shufflenetv2.shufflenet_v2_x1_0", "torchvision.models.ShuffleNet_V2_X1_0_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.shufflenet_v2_x1_5", "torchvision.models.shufflenetv2.shufflenet_v2_x1_5", "torchvision.models.ShuffleNet_V2_X1_5_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.shufflenet_v2_x2_0", "torchvision.models.shufflenetv2.shufflenet_v2_x2_0", "torchvision.models.ShuffleNet_V2_X2_0_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.squeezenet1_0", "torchvision.models.squeezenet.squeezenet1_0", "torchvision.models.SqueezeNet1_0_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.squeezenet1_1", "torchvision.models.squeezenet.squeezenet1_1", "torchvision.models.SqueezeNet1_1_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.swin_b", "torchvision.models.swin_transformer.swin_b", "torchvision.models.Swin_B_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.swin_s", "torchvision.models.swin_transformer.swin_s", "torchvision.models.Swin_S_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.swin_t", "torchvision.models.swin_transformer.swin_t", "torchvision.models.Swin_T_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.swin_v2_b", "torchvision.models.swin_transformer.swin_v2_b", "torchvision.models.Swin_V2_B_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.swin_v2_s", "torchvision.models.swin_transformer.swin_v2_s", "torchvision.models.Swin_V2_S_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.swin_v2_t", "torchvision.models.swin_transformer.swin_v2_t", "torchvision.models.Swin_V2_T_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg11", "torchvision.models.vgg.vgg11", "torchvision.models.VGG11_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg11_bn", "torchvision.models.vgg.vgg11_bn", "torchvision.models.VGG11_BN_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg13", "torchvision.models.vgg.vgg13", "torchvision.models.VGG13_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg13_bn", "torchvision.models.vgg.vgg13_bn", "torchvision.models.VGG13_BN_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg16", "torchvision.models.vgg.vgg16", "torchvision.models.VGG16_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg16_bn", "torchvision.models.vgg.vgg16_bn", "torchvision.models.VGG16_BN_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg19", "torchvision.models.vgg.vgg19", "torchvision.models.VGG19_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vgg19_bn", "torchvision.models.vgg.vgg19_bn", "torchvision.models.VGG19_BN_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.video.mc3_18", "torchvision.models.video.resnet.mc3_18", "torchvision.models.video.MC3_18_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.mvit_v1_b", "torchvision.models.video.mvit.mvit_v1_b", "torchvision.models.video.MViT_V1_B_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.mvit_v2_s", "torchvision.models.video.mvit.mvit_v2_s", "torchvision.models.video.MViT_V2_S_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.r2plus1d_18", "torchvision.models.video.resnet.r2plus1d_18", "torchvision.models.video.R2Plus1D_18_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.r3d_18", "torchvision.models.video.resnet.r3d_18", "torchvision.models.video.R3D_18_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.s3d", "torchvision.models.video.s3d.s3d", "torchvision.models.video.S3D_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.swin3d_b", "torchvision.models.video.swin_transformer.swin3d_b", "torchvision.models.video.Swin3D_B_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.swin3d_s", "torchvision.models.video.swin_transformer.swin3d_s", "torchvision.models.video.Swin3D_S_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.video.swin3d_t", "torchvision.models.video.swin_transformer.swin3d_t", "torchvision.models.video.Swin3D_T_Weights.KINETICS400_V1", "", ""},
    {"torchvision.models.vit_b_16", "torchvision.models.vision_transformer.vit_b_16", "torchvision.models.ViT_B_16_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vit_b_32", "torchvision.models.vision_transformer.vit_b_32", "torchvision.models.ViT_B_32_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vit_h_14", "torchvision.models.vision_transformer.vit_h_14", "None", "", ""},
    {"torchvision.models.vit_l_16", "torchvision.models.vision_transformer.vit_l_16", "torchvision.models.ViT_L_16_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.vit_l_32", "torchvision.models.vision_transformer.vit_l_32", "torchvision.models.ViT_L_32_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.wide_resnet101_2", "torchvision.models.resnet.wide_resnet101_2", "torchvision.models.Wide_ResNet101_2_Weights.IMAGENET1K_V1", "", ""},
    {"torchvision.models.wide_resnet50_2", "torchvision.models.resnet.wide_resnet50_2", "torchvision.models.Wide_ResNet50_2_Weights.IMAGENET1K_V1", "", ""},
}};

struct Index {
  std::unordered_map<std::string_view, const Builder*> by_name;
  Index() {
    for (const Builder& b : kBuilders) {
      by_name.emplace(b.exported, &b);
      by_name.emplace(b.defined, &b);
    }
  }
};

}  // namespace

const Builder* findBuilder(std::string_view qualified) {
  static const Index index;
  auto it = index.by_name.find(qualified);
  return it == index.by_name.end() ? nullptr : it->second;
}

}  // namespace ptlint::rules::vision
