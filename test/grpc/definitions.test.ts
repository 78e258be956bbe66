/**
 * Our own .proto files (src/grpc) state the protocols in our words; what a client depends on
 * (names, field numbers, types, labels, streaming) must be the published definitions'. Each
 * message and method we serve is compared, field by field, with the reference copies in
 * ../shared/reference/protocols: the Open Inference Protocol's, Triton's (the repository
 * extension) and gRPC health's, all compiled by protobufjs.
 */
import { expect } from 'chai'
import path from 'node:path'
import protobuf from 'protobufjs'
import { HEALTH_PROTO, INFERENCE_PROTO } from '../../src/grpc/protos.js'
import { sharedPath } from '../helpers/shared-data.js'

const PROTOCOLS = sharedPath('reference/protocols')

/** One definition file compiled, its imports found beside it. */
function compile (file: string): protobuf.Root {
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => path.isAbsolute(target) ? target : path.join(path.dirname(file), target)
  root.loadSync(file, { keepCase: true })
  root.resolveAll()
  return root
}

/** What a message means on the wire and to a generated client: every field, nested type and enum value. */
function shapeOf (type: protobuf.Type): unknown {
  const oneofOf = new Map<string, string>()
  for (const o of type.oneofsArray) for (const f of o.fieldsArray) oneofOf.set(f.name, o.name)
  return {
    name: type.name,
    fields: type.fieldsArray.map(f => ({
      name: f.name,
      id: f.id,
      type: f.resolvedType === null ? f.type : f.resolvedType.fullName,
      label: f instanceof protobuf.MapField ? `map<${f.keyType}>` : f.repeated ? 'repeated' : 'optional',
      packed: f.repeated ? f.packed : undefined,
      oneof: oneofOf.get(f.name) ?? null
    })).sort((a, b) => a.id - b.id),
    nested: type.nestedArray.map(n => n instanceof protobuf.Type ? shapeOf(n) : n instanceof protobuf.Enum ? { enum: n.name, values: n.values } : { other: n.name })
  }
}

function methodsOf (service: protobuf.Service): unknown[] {
  return service.methodsArray.map(m => ({
    name: m.name,
    request: m.resolvedRequestType!.fullName,
    response: m.resolvedResponseType!.fullName,
    requestStream: m.requestStream === true,
    responseStream: m.responseStream === true
  }))
}

/** Every message type of a namespace, by full name. */
function messages (root: protobuf.Root, namespace: string): Map<string, protobuf.Type> {
  const out = new Map<string, protobuf.Type>()
  for (const n of (root.lookup(namespace) as protobuf.Namespace).nestedArray) {
    if (n instanceof protobuf.Type) out.set(n.fullName, n)
  }
  return out
}

describe('our .proto files against the published definitions', () => {
  let ours: protobuf.Root
  let oip: protobuf.Root
  let triton: protobuf.Root
  let health: protobuf.Root
  before(() => {
    ours = compile(INFERENCE_PROTO)
    ours.loadSync(HEALTH_PROTO, { keepCase: true })
    ours.resolveAll()
    oip = compile(path.join(PROTOCOLS, 'oip', 'open_inference_grpc.proto'))
    triton = compile(path.join(PROTOCOLS, 'triton', 'grpc_service.proto'))
    health = compile(path.join(PROTOCOLS, 'grpc-health', 'health.proto'))
  })

  it('every inference message is the Open Inference Protocol\'s, or for the repository extension Triton\'s, field for field', () => {
    const ourMessages = messages(ours, 'inference')
    const oipMessages = messages(oip, 'inference')
    const tritonMessages = messages(triton, 'inference')
    const fromTriton: string[] = []
    for (const [name, type] of ourMessages) {
      const reference = oipMessages.get(name) ?? tritonMessages.get(name)
      expect(reference, `${name} is in no reference definition`).to.not.equal(undefined)
      if (!oipMessages.has(name)) fromTriton.push(type.name)
      expect(shapeOf(type), name).to.deep.equal(shapeOf(reference!))
    }
    // Every OIP message is served; the ones Triton adds are only the repository extension's.
    expect([...oipMessages.keys()].filter(n => !ourMessages.has(n))).to.deep.equal([])
    expect(fromTriton.sort()).to.deep.equal(['ModelRepositoryParameter', 'RepositoryIndexRequest', 'RepositoryIndexResponse', 'RepositoryModelLoadRequest', 'RepositoryModelLoadResponse', 'RepositoryModelUnloadRequest', 'RepositoryModelUnloadResponse'])
  })

  it('GRPCInferenceService has the OIP\'s methods and Triton\'s repository methods, with the same types and streaming', () => {
    const served = methodsOf(ours.lookupService('inference.GRPCInferenceService'))
    const oipMethods = methodsOf(oip.lookupService('inference.GRPCInferenceService'))
    const tritonMethods = new Map(methodsOf(triton.lookupService('inference.GRPCInferenceService')).map(m => [(m as { name: string }).name, m]))
    expect(served.slice(0, oipMethods.length)).to.deep.equal(oipMethods)
    const extension = served.slice(oipMethods.length)
    expect(extension.map(m => (m as { name: string }).name)).to.deep.equal(['RepositoryIndex', 'RepositoryModelLoad', 'RepositoryModelUnload'])
    for (const m of extension) expect(m).to.deep.equal(tritonMethods.get((m as { name: string }).name))
  })

  it('grpc.health.v1 is gRPC health\'s: its messages field for field, Check, List and Watch (a server stream)', () => {
    const ourMessages = messages(ours, 'grpc.health.v1')
    const reference = messages(health, 'grpc.health.v1')
    expect([...ourMessages.keys()].sort()).to.deep.equal([...reference.keys()].sort())
    for (const [name, type] of ourMessages) expect(shapeOf(type), name).to.deep.equal(shapeOf(reference.get(name)!))
    const methods = methodsOf(ours.lookupService('grpc.health.v1.Health'))
    expect(methods).to.deep.equal(methodsOf(health.lookupService('grpc.health.v1.Health')))
    expect(methods.map(m => (m as { responseStream: boolean }).responseStream)).to.deep.equal([false, false, true])
  })

  it('the comparison sees a changed number, type or label (a copy of ours with one field changed differs)', () => {
    const type = ours.lookupType('inference.ModelInferRequest')
    const before = shapeOf(type)
    const field = type.fields.id!
    const changed = [
      () => { field.id = 9 },
      () => { field.type = 'bytes' },
      () => { field.repeated = true }
    ]
    for (const change of changed) {
      const saved = { id: field.id, type: field.type, repeated: field.repeated }
      change()
      expect(shapeOf(type)).to.not.deep.equal(before)
      Object.assign(field, saved)
    }
    expect(shapeOf(type)).to.deep.equal(before)
  })
})
