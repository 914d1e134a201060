from net import Net, Tiny

net = Net()
net.compile()
tiny = Tiny()
tiny.compile(mode="reduce-overhead")
