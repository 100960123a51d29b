/**
 * A GGUF (version 3) writer: metadata key/values, tensor infos, aligned tensor data — the format
 * llama.cpp loads. Streams to disk tensor by tensor, so a model never has to fit in memory whole.
 * https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 */
import { closeSync, openSync, writeSync } from 'node:fs';

export const GGML_TYPE = { F32: 0, F16: 1 } as const;
export type GgmlType = (typeof GGML_TYPE)[keyof typeof GGML_TYPE];

const VALUE = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 } as const;
const ALIGNMENT = 32;

export type MetadataValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'f32[]'; value: readonly number[] }
  | { type: 'i32[]'; value: readonly number[] };

export interface TensorSpec {
  readonly name: string;
  /** ggml order: dims[0] is the innermost (row length). */
  readonly dims: readonly number[];
  readonly type: GgmlType;
  /** Fills `out` (length = element count) with the tensor's values. */
  fill(out: Float32Array): void;
}

/** Little-endian byte builder for the header. */
class Bytes {
  private parts: Buffer[] = [];
  length = 0;
  push(buffer: Buffer): void {
    this.parts.push(buffer);
    this.length += buffer.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  zeros(n: number): void {
    this.push(Buffer.alloc(n));
  }
  buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function writeArray<T>(out: Bytes, elementType: number, items: readonly T[], write: (item: T) => void): void {
  out.u32(VALUE.ARRAY);
  out.u32(elementType);
  out.u64(items.length);
  for (const item of items) write(item);
}

function writeValue(out: Bytes, value: MetadataValue): void {
  switch (value.type) {
    case 'u32':
      out.u32(VALUE.UINT32);
      out.u32(value.value);
      return;
    case 'i32':
      out.u32(VALUE.INT32);
      out.i32(value.value);
      return;
    case 'f32':
      out.u32(VALUE.FLOAT32);
      out.f32(value.value);
      return;
    case 'bool':
      out.u32(VALUE.BOOL);
      out.push(Buffer.from([value.value ? 1 : 0]));
      return;
    case 'string':
      out.u32(VALUE.STRING);
      out.string(value.value);
      return;
    case 'string[]':
      return writeArray(out, VALUE.STRING, value.value, (s) => out.string(s));
    case 'f32[]':
      return writeArray(out, VALUE.FLOAT32, value.value, (v) => out.f32(v));
    case 'i32[]':
      return writeArray(out, VALUE.INT32, value.value, (v) => out.i32(v));
  }
}

/** IEEE 754 half precision, round to nearest even (subnormals included): the reference for Float16Array. */
export function toHalf(value: number): number {
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exponent = ((x >>> 23) & 0xff) - 127 + 15;
  let mantissa = x & 0x7fffff;
  if (((x >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 0x1f) return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - exponent;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    return sign | (half + (rest > midpoint || (rest === midpoint && (half & 1)) ? 1 : 0));
  }
  const half = (exponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && (half & 1)) ? 1 : 0));
}

function elementCount(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

function byteSize(tensor: TensorSpec): number {
  return elementCount(tensor.dims) * (tensor.type === GGML_TYPE.F32 ? 4 : 2);
}

const align = (n: number): number => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

export function writeGguf(path: string, metadata: ReadonlyArray<readonly [string, MetadataValue]>, tensors: readonly TensorSpec[]): void {
  const header = new Bytes();
  header.u32(0x46554747); // "GGUF"
  header.u32(3);
  header.u64(tensors.length);
  header.u64(metadata.length);
  for (const [key, value] of metadata) {
    header.string(key);
    writeValue(header, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    header.string(tensor.name);
    header.u32(tensor.dims.length);
    for (const dim of tensor.dims) header.u64(dim);
    header.u32(tensor.type);
    header.u64(offset);
    offset = align(offset + byteSize(tensor));
  }
  header.zeros(align(header.length) - header.length);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header.buffer());
    for (const tensor of tensors) {
      const values = new Float32Array(elementCount(tensor.dims));
      tensor.fill(values);
      let data: Buffer;
      // Float16Array rounds to nearest even like toHalf (the tests hold them to each other) and is
      // native: the 28 M-parameter model converts in a fraction of a second.
      if (tensor.type === GGML_TYPE.F32) data = Buffer.from(values.buffer);
      else data = Buffer.from(new Float16Array(values).buffer);
      writeSync(fd, data);
      writeSync(fd, Buffer.alloc(align(data.length) - data.length));
    }
  } finally {
    closeSync(fd);
  }
}
