//go:build !purego

#include "textflag.h"

// hibits<>[h] = 1<<h for the high nibbles of ASCII bytes (h < 8), 0 for the
// high nibbles of bytes >= 0x80.
DATA hibits<>+0(SB)/8, $0x8040201008040201
DATA hibits<>+8(SB)/8, $0x0000000000000000
GLOBL hibits<>(SB), RODATA|NOPTR, $16

DATA lownib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA lownib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL lownib<>(SB), RODATA|NOPTR, $16

// Offsets in scanState (scan_amd64.go; TestScanStateLayout checks them).
#define Q_P 0
#define Q_N 8
#define Q_I 16
#define Q_E 24
#define Q_PRE 32
#define Q_ANCHORS 40
#define Q_LUT 48
#define Q_ANCH 56
#define Q_PREW 64
#define Q_PREMUL 72
#define Q_SHIFT 80
#define Q_SPLIT 88
#define Q_BASE 96
#define Q_NEXT 104
#define Q_STOP 112
#define Q_WORD 120
#define Q_UPPER 128
#define Q_DIGIT 136
#define Q_UNDER 144
#define Q_ANCHOR 152

// CLASS puts in dst the bits of the 32 bytes of the current chunk (low
// nibbles in Y0, their high nibble's bit in Y2) that are in the class of
// the nibble table lut: a byte is in it when (lut[low] & bit) == bit.
// Bytes >= 0x80 (bit 0) compare equal; they are cleared later from all
// classes but the stop class, of which they are part.
#define CLASS(lut, dst) \
	VPSHUFB   Y0, lut, Y3; \
	VPAND     Y2, Y3, Y3; \
	VPCMPEQB  Y2, Y3, Y3; \
	VPMOVMSKB Y3, dst

#define CLASSHI(lut, acc) \
	CLASS(lut, DX); \
	SHLQ $32, DX; \
	ORQ  DX, acc

// NIBBLES loads the chunk at off(BX) and splits it: Y0 the low nibbles,
// Y2 the bit of the high nibble; the bytes >= 0x80 in DX.
#define NIBBLES(off) \
	VMOVDQU   off(BX), Y0; \
	VPMOVMSKB Y0, DX; \
	VPSRLW    $4, Y0, Y1; \
	VPAND     Y15, Y1, Y1; \
	VPAND     Y15, Y0, Y0; \
	VPSHUFB   Y1, Y14, Y2

// PROBE sets reg to the prefilter cell of the ASCII word of len bytes
// (register, clobbered) whose first four bytes (more past len do not
// matter) are in reg: Matcher.pre.cell. It uses R14 and CX.
#define PROBE(reg, len) \
	CMPQ   len, $4; \
	JAE    3(PC); \
	LEAQ   0(len*8), R14; \
	BZHIL  R14, reg, reg; \
	ORL    $0x20202020, reg; \
	SHLQ   $32, len; \
	ORQ    len, reg; \
	IMULQ  Q_PREMUL(DI), reg; \
	MOVQ   Q_SHIFT(DI), R14; \
	SHRXQ  R14, reg, reg; \
	MOVQ   reg, R14; \
	SHRQ   $5, R14; \
	MOVQ   Q_PREW(DI), CX; \
	MOVQ   (CX)(R14*8), R14; \
	ANDL   $31, reg; \
	ADDL   reg, reg; \
	SHRXQ  reg, R14, reg; \
	ANDQ   $3, reg

// LOAD4 loads into dst the four bytes of the line (SI, length R8) at
// index off, using tmp; past the line's end it reads only within the same
// page (as the runtime's own assembly does), else it jumps to fail.
#define LOAD4(off, tmp, dst, fail) \
	LEAQ   4(off), tmp; \
	CMPQ   tmp, R8; \
	JBE    5(PC); \
	LEAQ   (SI)(off*1), tmp; \
	ANDQ   $4095, tmp; \
	CMPQ   tmp, $4092; \
	JA     fail; \
	MOVL   (SI)(off*1), dst

// func scanASM(q *scanState) (kind int)
//
// scanASM is scanQuiet's loop (see scan_amd64.go for what it returns).
// It classifies the line 64 bytes at a time with AVX2 and walks the stop
// bytes of each block with BMI1/BMI2 bit operations. Registers in the
// walk: DI q, SI the line, R8 its length, R9 the block's first byte, R10
// the block's stop bytes not yet passed, R11 its word bytes, R13 the
// position (then a word's start), R15 a word's end.
TEXT ·scanASM(SB), NOSPLIT, $64-16
	MOVQ q+0(FP), DI
	MOVQ Q_P(DI), SI
	MOVQ Q_N(DI), R8
	MOVQ Q_I(DI), R13

top:
	CMPQ R13, R8
	JGE  retend
	CMPQ R13, Q_NEXT(DI)
	JGE  load

walkstart:
	MOVQ  Q_BASE(DI), R9
	MOVQ  Q_STOP(DI), R10
	MOVQ  Q_WORD(DI), R11
	MOVQ  R13, AX
	SUBQ  R9, AX
	SHRXQ AX, R10, R10
	SHLXQ AX, R10, R10

walk:
	TESTQ  R10, R10
	JZ     blockend
	TZCNTQ R10, AX
	SHRXQ  AX, R11, BX
	TESTQ  $1, BX
	JZ     retstop
	NOTQ   BX
	TZCNTQ BX, BX
	LEAQ   (AX)(BX*1), DX
	CMPQ   DX, $64
	JAE    retlong
	SHRXQ  DX, R10, R10
	SHLXQ  DX, R10, R10
	LEAQ   (R9)(AX*1), R13
	LEAQ   (R13)(BX*1), R15
	CMPQ   R15, R8
	JAE    probe
	MOVBLZX (SI)(R15*1), DX
	CMPL   DX, $0x80
	JAE    retword0

probe:
	// AX: the word's offset in the block, BX its length.
	LOAD4(R13, DX, DX, retlong)
	PROBE(DX, BX)
	TESTQ  DX, DX
	JNZ    retword
	CMPQ   Q_SPLIT(DI), $0
	JE     walk

	// The word may split into sub-words (hkeys.subword's rules, as
	// nextSubwordASCII applies them): probe those that start after its
	// first byte. Masks of the word's bytes: CX all, DX upper-case, BX
	// digits, R12 '_', R14 lower-case.
	MOVQ   R15, R12
	SUBQ   R13, R12
	MOVQ   $-1, CX
	BZHIQ  R12, CX, CX
	MOVQ   Q_UPPER(DI), DX
	SHRXQ  AX, DX, DX
	ANDQ   CX, DX
	MOVQ   Q_DIGIT(DI), BX
	SHRXQ  AX, BX, BX
	ANDQ   CX, BX
	MOVQ   Q_UNDER(DI), R12
	SHRXQ  AX, R12, R12
	ANDQ   CX, R12
	// No digit, no '_' and no upper-case letter after the first byte:
	// one sub-word, the word itself.
	MOVQ   DX, AX
	SHRQ   $1, AX
	ORQ    BX, AX
	ORQ    R12, AX
	JZ     walk
	MOVQ   DX, R14
	ORQ    BX, R14
	ORQ    R12, R14
	ANDNQ  CX, R14, R14
	// The sub-word starts (AX): every byte but '_' that is the word's
	// first or follows a '_' (1 | R12<<1), follows a byte of the other
	// kind among letters and digits (BX ^ BX<<1), is an upper-case letter
	// after a lower-case one (DX & R14<<1), or an upper-case letter after
	// another one and before a lower-case one (HTTPServer: DX & DX<<1 &
	// R14>>1). R15 (the word's end) waits in Q_E.
	MOVQ   R15, Q_E(DI)
	MOVQ   R12, AX
	SHLQ   $1, AX
	ORQ    $1, AX
	MOVQ   BX, CX
	SHLQ   $1, CX
	XORQ   BX, CX
	ORQ    CX, AX
	MOVQ   R14, CX
	SHLQ   $1, CX
	ANDQ   DX, CX
	ORQ    CX, AX
	MOVQ   DX, CX
	SHLQ   $1, CX
	ANDQ   DX, CX
	MOVQ   R14, R15
	SHRQ   $1, R15
	ANDQ   R15, CX
	ORQ    CX, AX
	ORQ    DX, BX
	ORQ    R14, BX
	ANDQ   BX, AX
	// One sub-word, the whole word: probed already.
	CMPQ   AX, $1
	JNE    subwords
	TESTQ  R12, R12
	JZ     subdone

subwords:
	// A sub-word ends at the next start or '_' (BX), or at the word's end.
	MOVQ   AX, BX
	ORQ    R12, BX

subnext:
	TESTQ  AX, AX
	JZ     subdone
	TZCNTQ AX, CX
	BLSRQ  AX, AX
	MOVQ   BX, DX
	SHRXQ  CX, DX, DX
	ANDQ   $-2, DX
	TZCNTQ DX, DX
	MOVQ   Q_E(DI), R15
	SUBQ   R13, R15
	SUBQ   CX, R15
	CMPQ   DX, R15
	CMOVQLT DX, R15
	// Probe the sub-word of R15 bytes at R13+CX.
	LEAQ   (R13)(CX*1), DX
	LOAD4(DX, R14, DX, subhit)
	PROBE(DX, R15)
	ANDQ   $2, DX
	JZ     subnext

subhit:
	MOVQ   Q_E(DI), R15
	JMP    retword0

subdone:
	MOVQ   Q_E(DI), R15
	JMP    walk

blockend:
	MOVQ   Q_NEXT(DI), R13
	JMP    top

load:
	// Classify the block holding R13: 64 bytes from BX, CX of them in
	// the line. Past the line's end the bytes are read within the same
	// page only (as the runtime's own assembly does); near a page end
	// the line's bytes are copied to the pad first.
	MOVQ   R13, R9
	ANDQ   $~63, R9
	MOVQ   R9, Q_BASE(DI)
	LEAQ   64(R9), AX
	MOVQ   AX, Q_NEXT(DI)
	MOVQ   R8, CX
	SUBQ   R9, CX
	LEAQ   (SI)(R9*1), BX
	CMPQ   CX, $64
	JAE    classify
	MOVQ   BX, AX
	ANDQ   $4095, AX
	CMPQ   AX, $4032
	JBE    classify
	LEAQ   pad-64(SP), DX
	XORQ   AX, AX

copy:
	MOVB   (BX)(AX*1), R12
	MOVB   R12, (DX)(AX*1)
	INCQ   AX
	CMPQ   AX, CX
	JB     copy
	MOVQ   DX, BX

classify:
	MOVQ   Q_LUT(DI), AX
	VBROADCASTI128 0(AX), Y8
	VBROADCASTI128 16(AX), Y9
	VBROADCASTI128 32(AX), Y10
	VBROADCASTI128 48(AX), Y11
	VBROADCASTI128 64(AX), Y12
	VBROADCASTI128 80(AX), Y13
	VBROADCASTI128 hibits<>(SB), Y14
	VBROADCASTI128 lownib<>(SB), Y15
	// Classes: R9 stop, R10 word, R11 upper, R12 digit, R14 under, R15
	// anchor; AX the bytes >= 0x80.
	NIBBLES(0)
	MOVQ   DX, AX
	CLASS(Y8, R9)
	CLASS(Y9, R10)
	CLASS(Y10, R11)
	CLASS(Y11, R12)
	CLASS(Y12, R14)
	CLASS(Y13, R15)
	CMPQ   CX, $32
	JBE    classified
	NIBBLES(32)
	SHLQ   $32, DX
	ORQ    DX, AX
	CLASSHI(Y8, R9)
	CLASSHI(Y9, R10)
	CLASSHI(Y10, R11)
	CLASSHI(Y11, R12)
	CLASSHI(Y12, R14)
	CLASSHI(Y13, R15)

classified:
	VZEROUPPER
	NOTQ   AX
	ANDQ   AX, R10
	ANDQ   AX, R11
	ANDQ   AX, R12
	ANDQ   AX, R14
	ANDQ   AX, R15
	CMPQ   CX, $64
	JAE    store
	MOVQ   $-1, DX
	BZHIQ  CX, DX, DX
	ANDQ   DX, R9
	ANDQ   DX, R10
	ANDQ   DX, R11
	ANDQ   DX, R12
	ANDQ   DX, R14
	ANDQ   DX, R15

store:
	MOVQ   R9, Q_STOP(DI)
	MOVQ   R10, Q_WORD(DI)
	MOVQ   R11, Q_UPPER(DI)
	MOVQ   R12, Q_DIGIT(DI)
	MOVQ   R14, Q_UNDER(DI)
	MOVQ   R15, Q_ANCHOR(DI)
	// The anchor bits of the block's anchor bytes.
	TESTQ  R15, R15
	JZ     walkstart
	MOVQ   Q_ANCH(DI), R12
	MOVQ   Q_BASE(DI), R9
	MOVQ   Q_ANCHORS(DI), R11

anchors:
	TZCNTQ R15, DX
	ADDQ   R9, DX
	MOVBLZX (SI)(DX*1), DX
	MOVBLZX (R12)(DX*1), DX
	ORQ    DX, R11
	BLSRQ  R15, R15
	JNZ    anchors
	MOVQ   R11, Q_ANCHORS(DI)
	JMP    walkstart

retend:
	MOVQ   $0, ret+8(FP)
	RET

retstop:
	MOVQ   $1, BX
	JMP    retat

retword0:
	XORQ   DX, DX

retword:
	MOVQ   R13, Q_I(DI)
	MOVQ   R15, Q_E(DI)
	MOVQ   DX, Q_PRE(DI)
	MOVQ   $2, ret+8(FP)
	RET

retlong:
	MOVQ   $3, BX

retat:
	// Return kind BX for the byte at offset AX of the block.
	ADDQ   R9, AX
	MOVQ   AX, Q_I(DI)
	MOVQ   BX, ret+8(FP)
	RET
