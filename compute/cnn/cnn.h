// cnn.h: everything of the Fashion-MNIST network in one include, and its short manual for
// callers such as the window's panel (which owns no GPU resources: the main loop holds the
// CnnCuda and carries out the panel's requests).
//
//   FashionMnist test = load_fashion_mnist("", FashionMnistSplit::Test);   // throws: message
//   CnnWeights w = cnn_load_weights(cnn_default_weights_path());          // throws: message
//
//   Classify a few images (grid of test images, the selected one):
//     cnn_classify(w, CnnBackend::Cpu, nullptr, test.image(i), n, logits, probabilities);
//     cnn_argmax(logits + 10 * k) is the predicted class, probabilities[10 * k + c] its
//     confidence, kFashionMnistClassNames[c] the names.
//   First layer's feature maps of one image (16 maps of 28x28, after ReLU):
//     cnn_conv1_feature_maps(w, test.image(i), maps);
//   The GPU, when cnn_cuda_available(&reason) (else show `reason`):
//     CnnCudaHandle cuda = cnn_cuda_create(w, 10000);   // once; cnn_cuda_set_weights later
//     cnn_classify(w, CnnBackend::Cuda, cuda.get(), ...);
//   "Classify all 10,000" on a worker thread, with progress and cancel:
//     CnnEvalOptions o; o.backend = ...; o.batch = slider; o.cuda = cuda.get();
//     o.cancel = &cancel_flag; o.on_progress = [&](int done, int total) { ... };
//     CnnEvalResult r = cnn_evaluate(w, test, o);
//     r.accuracy, r.confusion, r.compute_images_per_second (GPU kernels alone),
//     r.images_per_second (with copies), r.batch_latency_ms, r.layers (time per stage)
//   Training (long; same progress/cancel pattern): cnn_train(train, &test, CnnTrainOptions{})
#pragma once

#include "compute/cnn/cnn_cpu.h"
#include "compute/cnn/cnn_cuda.h"
#include "compute/cnn/cnn_eval.h"
#include "compute/cnn/cnn_model.h"
#include "compute/cnn/cnn_train.h"
#include "compute/cnn/cnn_weights_file.h"
#include "compute/cnn/fashion_mnist.h"
