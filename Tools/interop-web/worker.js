// The receiver's script transform: passes encoded frames to the decoder
// until told to wedge, then swallows every one (a wedged decoder: keyframes
// cannot mend it, a new receiver can).
let wedged = false;
onmessage = e => { if (e.data === 'wedge') wedged = true; };
onrtctransform = event => {
  const t = event.transformer;
  t.readable.pipeThrough(new TransformStream({
    transform(frame, controller) { if (!wedged) controller.enqueue(frame); },
  })).pipeTo(t.writable);
};
