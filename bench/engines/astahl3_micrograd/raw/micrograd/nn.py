"""
Neuron class using micrograd.py
"""
import random
from micrograd import engine as me

class Module:
    
    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0
        
    def parameters(self):
        return []

class Neuron(Module):
    ''' Neuron for microEngine.py neural network '''
    
    def __init__(self, nInputs, nonlin='ReLU'):
        self.w = [me.Value(random.uniform(-1,1)) for _ in range(0,nInputs)]
        #self.w = [me.Value(random.gauss(0, 1/8)) for _ in range(0,nInputs)]
        #self.b = me.Value(random.uniform(-1,1))
        self.b = me.Value(0)
        self.nonlin = nonlin     

    def __call__(self, x):
        raw_act = sum((w_i*x_i for w_i, x_i in zip(self.w, x)), 0) + self.b
        if self.nonlin == 'tanh':
            return raw_act.tanh()
        elif self.nonlin == 'ReLU':
            return raw_act.relu()
        elif self.nonlin == 'sigmoid':
            return raw_act.sigmoid()
        else: # linear
            return raw_act
    
    def __repr__(self):
        return f"{self.nonlin}-Neuron({len(self.w)})"
    
    def parameters(self):
        return self.w + [self.b]

class Layer(Module):
    ''' Creates fully connected layer '''
    
    def __init__(self, nInputs, nLayer, nonlin='ReLU'):
        self.neurons = [Neuron(nInputs, nonlin) for _ in range(nLayer)]
        
    def __call__(self, x):        
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs
    
    def __repr__(self):
        return f"Layer of [{', '.join(repr(n) for n in self.neurons)}]"
    
    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]

        
class Multilayer_Perceptron(Module):
    
    def __init__(self, nIns, nOuts, nonlin='ReLU'):
        sz = [nIns] + nOuts
        self.layers = [Layer(sz[i], sz[i+1], nonlin=nonlin) for i in range(len(nOuts))]
        
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
    
    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
    
    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]
