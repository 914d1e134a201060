from proj.net import Model

model = Model().cuda()
model.compile(fullgraph=False)
