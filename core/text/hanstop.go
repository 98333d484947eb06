package text

import "unicode/utf8"

// HanStopWords are the Chinese characters GenericV3 does not emit as
// unigrams: sentence particles (的 了 吗 呢 吧 啊 呀 哦 嗯), the polite
// request (请 帮), personal pronouns (我 你 您 他 她 它 们) and the words
// requests are built of (一 个 要 能 会 有 给: "我要一个", "能不能",
// "有没有", "给我"). Alone, each says nothing about which tool a sentence is
// about; in a bigram (会议, 需要, 有效) it still counts. Why this list: of
// four lists measured (docs/QUALITY.md), it gained most on ACEBench zh and
// on the DWS catalog's use_when sentences and lost nowhere; a longer one
// with prepositions and conjunctions (在 和 与 把 被 …) cost LiveMCPBench
// 0.2 to 0.3 nDCG@10, whose Chinese descriptions it shortened.
const HanStopWords = "的了吗呢吧啊呀哦嗯请帮我你您他她它们一个要能会有给"

// isHanStop reports whether r is one of HanStopWords.
func isHanStop(r rune) bool {
	switch r {
	case '的', '了', '吗', '呢', '吧', '啊', '呀', '哦', '嗯', '请', '帮',
		'我', '你', '您', '他', '她', '它', '们', '一', '个', '要', '能', '会', '有', '给':
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
