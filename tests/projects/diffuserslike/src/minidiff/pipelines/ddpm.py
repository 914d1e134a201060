import torch


class DDPMPipeline:
    def __init__(self, unet, scheduler):
        self.unet = unet
        self.scheduler = scheduler

    @torch.no_grad()
    def __call__(self, batch_size=1, num_inference_steps=50):
        image = torch.randn(batch_size, 3, 64, 64)
        for t in range(num_inference_steps):
            model_output = self.unet(image, torch.full((batch_size,), t))
            image = self.scheduler.step(model_output, t, image)
        print("final std", image.std().item())
        return image
