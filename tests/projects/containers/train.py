from net import Net

net = Net(2, True)
net.compile()
