/* strings.c: the screen's own words (key bar, prompts, labels) in English and Chinese, chosen
 * by the current language (l switches at run time). Lesson text comes from the lessons.
 * Static tables only; no curses calls. */
#include "app.h"

static const char *const table[UIS_COUNT][2] = {
    /*                     en                                          zh */
    [UIS_NEXTBACK]      = {"n next  b back  ", "n 下一步  b 上一步  "},
    [UIS_KEYS]          = {"c contents  g playground  s sweep  i inspect  h hint  l lang  ? help  q quit",
                           "c 目录  g 练习场  s 扫描  i 检查  h 提示  l 语言  ? 帮助  q 退出"},
    [UIS_INSPECT_KEYS]  = {"arrows move  i/Esc leave inspect  ", "方向键移动  i/Esc 退出检查  "},
    [UIS_HIDDEN]        = {"Grid and numbers hidden until you answer (e reveals).",
                           "先回答，再看网格和数字（e 直接显示）。"},
    [UIS_PRESENT_HIDDEN]= {"Predict first.  Press e (or Enter) to reveal.",
                           "先预测。按 e（或 Enter）揭晓。"},
    [UIS_CHOICE_PREDICT]= {"press 1-9 to predict (e: reveal)", "按 1-9 预测（e：直接显示）"},
    [UIS_CHOICE]        = {"press 1-9 to answer", "按 1-9 作答"},
    [UIS_NUMBER_PREDICT]= {"type your prediction, Enter (e: reveal)", "输入你的预测，按 Enter（e：直接显示）"},
    [UIS_NUMBER]        = {"type the number, Enter", "输入数字，按 Enter"},
    [UIS_ANSWER_PROMPT] = {"answer: ", "答案："},
    [UIS_RIGHT]         = {"right", "正确"},
    [UIS_WRONG]         = {"not quite", "不对"},
    [UIS_ANSWER]        = {"answer", "答案"},
    [UIS_REVEALED]      = {"revealed without an answer", "未作答，已显示"},
    [UIS_HINT]          = {"hint", "提示"},
    [UIS_CODE]          = {"code", "代码"},
    [UIS_MODEL]         = {"model", "模型"},
    [UIS_MEASURED]      = {"measured", "实测"},
    [UIS_NO_GPU]        = {"no GPU", "无 GPU"},
};

const char *ui_str(const struct app *a, enum ui_str s)
{
    if (s < 0 || s >= UIS_COUNT)
        return "";
    const char *t = table[s][a->lang == LANG_ZH ? 1 : 0];
    return t ? t : table[s][0];
}
