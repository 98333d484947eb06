package lint

import (
	"slices"
	"strings"
	"unicode"
)

// The no_action_word check. Chinese has no verb morphology an English
// part-of-speech rule could read, so the check is a list in each language,
// applied to the text of that script: English words (any inflection of a
// base form: -s, -es, -ies, -ed, -d, -ing) and the first word of the
// tool's own name, which is usually its verb (fork_repository → fork); and
// Chinese action words, plus a single-character verb that opens the text
// (查群成员). A text with neither Latin nor Han letters is not checked.
// The lists favour silence: a text that holds any listed word passes.

var englishActions = sortedWords(`
accept access activate add adjust aggregate allow analyze analyse answer append apply approve archive ask assign attach
authenticate authorize autocomplete back block book browse build bulk calculate call cancel capture change charge chat check
classify clean clear click clone close collect comment commit compare compile complete compose compress compute configure
confirm connect convert copy count crawl create crop decline decode decrypt delete deploy describe detect diff disable
disconnect dismiss display download draft draw duplicate edit embed enable encode encrypt end enqueue enroll ensure
estimate evaluate evict drain ping execute expand explain export extract fetch fill filter find finish flag follow fork format forward
generate geocode get give grant group handle help hide highlight identify ignore import index inform insert inspect
install invite invoke issue join kill label launch leave let like link list load locate lock log login logout look lookup
manage map mark measure merge migrate modify monitor move mute navigate notify obtain open order organize overwrite paginate
parse pause pay perform pin place play plot poll post predict preview print process produce provide publish pull purchase
push put query queue rank react read reboot receive recognize recommend record redirect refresh refund register reject
release reload remind remove rename render reopen reorder replace reply report request reserve reset resize resolve
restart restore resume retrieve return revert review revoke rotate run save scan schedule scrape search see select sell
send set share show sign simulate skip snapshot solve sort split star start stop store stream submit subscribe suggest
summarize summarise suspend switch sync synchronize tag take test track trade transcribe transfer transform translate
trigger truncate tweet type unarchive unblock undo uninstall unlock unmute unpin unsubscribe unwatch update upgrade upload
upsert use validate verify view visit vote wait watch withdraw write`)

var chineseActions = []string{
	"查询", "查看", "查找", "获取", "创建", "新建", "删除", "移除", "发送", "更新", "修改", "添加", "新增", "搜索", "列出",
	"设置", "上传", "下载", "读取", "写入", "打开", "关闭", "提交", "撤回", "转发", "回复", "邀请", "审批", "导出", "导入",
	"生成", "计算", "统计", "分析", "检查", "返回", "管理", "编辑", "启动", "停止", "取消", "同步", "分享", "标记", "拉取",
	"推送", "订阅", "预约", "预订", "签到", "保存", "合并", "拆分", "排序", "筛选", "翻译", "总结", "识别", "绘制", "播放",
	"暂停", "支付", "退款", "购买", "登录", "注册", "授权", "移动", "复制", "重命名", "归档", "恢复", "启用", "禁用", "安装",
	"部署", "指派", "分配", "转交", "通知", "提醒", "发起", "处理", "加入", "退出", "置顶", "收藏", "评论", "点赞", "上报",
	"汇报", "填写", "录入", "记录", "清空", "配置", "变更", "调整", "开启", "结束", "完成", "获得", "展示", "显示", "浏览",
	"检索", "匹配", "校验", "验证", "解析", "转换", "发布", "撤销", "拒绝", "同意", "驳回", "批量", "申请", "领取", "发放",
	"安排", "预览", "打印", "扫描", "导航", "定位", "订购", "兑换", "充值",
	"停用", "推荐", "清除", "还原", "回滚", "追加", "隐藏", "解除", "开通", "卸载", "授予", "收回", "确认", "催办", "抄送",
	"打卡", "补卡", "请假", "报销", "提取", "查阅", "移出", "踢出", "上线", "下线", "设为", "置为", "取回", "插入", "替换",
	"冻结", "解冻", "锁定", "解锁", "重置", "刷新", "对比", "比较", "过滤", "聚合", "汇总", "转写", "调用", "执行", "运行",
	"测试", "评估", "预测", "检测", "监控", "跟踪", "分发", "派发", "批准", "审核", "核对", "屏蔽", "静音", "查", "搜", "读", "写", "删", "改", "建", "发",
}

// openingVerbs: one character that is a verb when it opens the text.
var openingVerbs = []rune("查看找搜读写删改建发送加设开关存取传拉推问算转回给让把将")

func sortedWords(s string) []string {
	words := strings.Fields(s)
	slices.Sort(words)
	return slices.Compact(words)
}

// HasActionWord reports which lists were applied to text ("English",
// "Chinese", "English and Chinese", or "" when neither applies) and
// whether it holds a listed action word. nameWords are the tool's name
// split into words; the first counts as an action word.
func HasActionWord(text string, nameWords []string) (checked string, found bool) {
	latin, han := false, false
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			han = true
		case r < 0x250 && unicode.IsLetter(r):
			latin = true
		}
	}
	switch {
	case latin && han:
		checked = "English and Chinese"
	case latin:
		checked = "English"
	case han:
		checked = "Chinese"
	default:
		return "", false
	}
	if latin {
		for _, w := range NameWords(text) {
			if isEnglishAction(w) || len(nameWords) > 0 && w == nameWords[0] {
				return checked, true
			}
		}
	}
	if han {
		for _, w := range chineseActions {
			if strings.Contains(text, w) {
				return checked, true
			}
		}
		trimmed := strings.TrimLeftFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
		for _, r := range trimmed {
			if slices.Contains(openingVerbs, r) {
				return checked, true
			}
			break
		}
	}
	return checked, false
}

// isEnglishAction: w, or w without an inflection, is a listed base form.
func isEnglishAction(w string) bool {
	in := func(s string) bool { _, ok := slices.BinarySearch(englishActions, s); return ok }
	if in(w) {
		return true
	}
	candidates := []string{}
	if b, ok := strings.CutSuffix(w, "ies"); ok {
		candidates = append(candidates, b+"y")
	}
	if b, ok := strings.CutSuffix(w, "es"); ok {
		candidates = append(candidates, b)
	}
	if b, ok := strings.CutSuffix(w, "s"); ok {
		candidates = append(candidates, b)
	}
	if b, ok := strings.CutSuffix(w, "ied"); ok {
		candidates = append(candidates, b+"y")
	}
	if b, ok := strings.CutSuffix(w, "ed"); ok {
		candidates = append(candidates, b, b+"e")
		if n := len(b); n >= 2 && b[n-1] == b[n-2] { // stopped → stop
			candidates = append(candidates, b[:n-1])
		}
	}
	if b, ok := strings.CutSuffix(w, "d"); ok {
		candidates = append(candidates, b)
	}
	if b, ok := strings.CutSuffix(w, "ing"); ok {
		candidates = append(candidates, b, b+"e")
		if n := len(b); n >= 2 && b[n-1] == b[n-2] { // running → run
			candidates = append(candidates, b[:n-1])
		}
	}
	for _, c := range candidates {
		if in(c) {
			return true
		}
	}
	return false
}
