package text

import "unicode/utf8"

// HanStopWords are the Chinese function words whose single characters
// GenericV3 does not emit as unigrams: pronouns, particles, the polite
// request and the commonest prepositions and conjunctions. Every one is a
// whole word on its own and, as a lone character, says nothing about which
// tool a sentence is about ("请帮我查一下…吗"). Content characters that are
// also function words elsewhere (会, 有, 要, 给, 能, 一, 个) are not here:
// they stand for meeting, have, want, give… as often.
const HanStopWords = "我你您他她它们的了吗呢吧啊呀哦嗯请帮是在和与及或把被就都也还很这那么着过得之其该此"

// isHanStop reports whether r is one of HanStopWords.
func isHanStop(r rune) bool {
	switch r {
	case '我', '你', '您', '他', '她', '它', '们', '的', '了', '吗', '呢', '吧', '啊', '呀', '哦', '嗯',
		'请', '帮', '是', '在', '和', '与', '及', '或', '把', '被', '就', '都', '也', '还', '很',
		'这', '那', '么', '着', '过', '得', '之', '其', '该', '此':
		return true
	}
	return false
}

// appendHanWithoutStops is appendHan without the unigrams of HanStopWords.
func appendHanWithoutStops(dst []string, h string) []string {
	for i := 0; i < len(h); {
		r, n := utf8.DecodeRuneInString(h[i:])
		j := i + n
		if !isHanStop(r) {
			dst = append(dst, h[i:j])
		}
		if j < len(h) {
			_, m := utf8.DecodeRuneInString(h[j:])
			dst = append(dst, h[i:j+m])
		}
		i = j
	}
	return dst
}
