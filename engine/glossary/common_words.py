"""Everyday Japanese words that ``glossary extract``'s heuristics would take for names and terms: the stop list.

Built from what the heuristics found in the bundled sample (芥川「羅生門」) and in 漱石「坊っちゃん」 (tests/data),
then widened with words of the same kinds that fiction uses all the time: kanji adverbs and pronouns, everyday
nouns and abstract words, verb stems the kanji rule cuts out of a verb (``見開``いて), and katakana loanwords of
daily life. A word here is never a candidate; a story's own terms (``下人``, ``死骸``, ``太刀``) are not here, even
when they are common words, because a translator wants them fixed.

``HONORIFIC_LOOKALIKES`` are words that end like an honorific (``空模様``, ``皆さん``, ``貴様``): the part before
it is no character's name.
"""

from __future__ import annotations

_ADVERBS_AND_PRONOUNS = """
何故 自分 此処 其処 彼処 何処 今日 明日 昨日 其の 此の 彼の 我々 人々 時々 色々 一緒 以上 以下 今度 唯一 丁度
到頭 矢張 如何 何時 何人 大抵 勿論 所々 先刻 少時 今夜 今朝 毎日 是非 大分 出来 仕方 一通 様子 有様 以前 以後
最後 最初 途中 場合 必要 全然 同時 当然 結局 存外 成程 大方 大体 大目 暫時 多分 現在 今時分 時分 次第 格別 無論
何分 一層 一寸 少々 段々 益々 愈々 勿体 彼女 彼等 我等 貴方 此方 其方
"""
_EVERYDAY_NOUNS = """
勇気 主人 人間 木片 憎悪 意識 石段 衰微 夕闇 手段 肯定 部分 恐怖 両手 両足 片手 失望 着物 地震 火事 習慣 気味
近所 始末 修理 途方 適当 影響 何度 遠慮 範囲 事実 瞬間 感情 呼吸 問題 無理 明白 仕事 満足 意味 反対 方向 不意
平凡 永久 未練 無言 勝敗 生死 意志 支配 得意 円満 成就 侮蔑 先方 大股 眼球 執拗 行手 行方 足音 屋根 夕焼 作者
記者 人目 好奇心 嗅覚 臭気 反感 語弊 善悪 合理的 積極的 無造作 天井裏 床板 白髪 白髪頭 仏像 仏具 金銀 刻限
空模様 雨風 余波 刻下 揚句 局所 逢着 大儀 低徊 冷然 気色 喉仏 容子 中段 隅々 蜘蛛 人形 腐爛 頭身 肉食鳥
可愛 弱虫 親指 駄目 気性 親類 無暗 乱暴 不審 小遣 仕掛 勘当 眉間 井戸 人参 質屋 片袖 菜園
時間 世界 人生 自身 全部 本当 気持 相手 場所 言葉 結果 理由 部屋 学校 電話 会社 友達 家族 子供 女性 男性 少年
少女 一方 他人 大人 以来 顔色 心配 返事 注意 仕度 用意 様々 夢中 大事 大切 大変 沢山 一杯 一生 一体 一応 一瞬
"""
_VERB_STEMS = """
見開 打砕 引取 立上 見上 見下 見守 差当 持出 蹴倒 鞘走 引剥 見廻 見送 思出 飛上 飛出 取出 取上 出掛 申上 振返
"""
_KATAKANA_LOANWORDS = """
テーブル ドア コーヒー テレビ カメラ ベッド ホテル レストラン メール ページ ニュース ナイフ ガラス ボタン
シャツ スープ パン ビール タバコ ポケット ベンチ バス タクシー エレベーター トイレ キッチン ノート ペン
"""

COMMON_WORDS: frozenset[str] = frozenset(
    " ".join((_ADVERBS_AND_PRONOUNS, _EVERYDAY_NOUNS, _VERB_STEMS, _KATAKANA_LOANWORDS)).split()
)

HONORIFIC_LOOKALIKES: tuple[str, ...] = (
    "模様",
    "有様",
    "同様",
    "仕様",
    "貴様",
    "皆様",
    "皆さん",
    "奥様",
    "奥さん",
    "諸君",
    "細君",
    "主君",
    "彼氏",
    "兄さん",
    "姉さん",
    "母さん",
    "父さん",
)
