/* strings.c: the screen's own words (key bar, prompts, labels) in English and Chinese, chosen
 * by the current language (l switches at run time). Lesson text comes from the lessons.
 * Static tables only; no curses calls. */
#include "app.h"

static const char *const table[UIS_COUNT][2] = {
    /*                     en                                          zh */
    [UIS_NEXTBACK]      = {"n next  b back  ", "n 下一步  b 上一步  "},
    [UIS_KEYS]          = {"c contents  g playground  s sweep  i inspect  h hint  l lang  ? help  q quit",
                           "c 目录  g 练习场  s 扫描  i 检查  h 提示  l 语言  ? 帮助  q 退出"},
    [UIS_INSPECT_KEYS]  = {"arrows move  Enter next lane  i/Esc leave  ", "方向键移动  Enter 下一个 lane  i/Esc 退出  "},
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
    [UIS_TOC_TITLE]     = {" banklab: contents", " banklab：目录"},
    [UIS_TOC_KEYS]      = {"Up/Down PgUp/PgDn move  Enter go  Esc/c back  (? = quiz not answered yet)  q quit",
                           "Up/Down PgUp/PgDn 移动  Enter 跳转  Esc/c 返回（? = 测验未答）  q 退出"},
    [UIS_SWEEP_KEYS]    = {"Left/Right change the value  lesson keys too  Esc/s back  g playground  ? help  q quit",
                           "Left/Right 改变取值  课程按键也可用  Esc/s 返回  g 练习场  ? 帮助  q 退出"},
    [UIS_PLAY_TITLE]    = {" banklab: playground", " banklab：练习场"},
    [UIS_PLAY_INTRO]    = {"Type declarations and an access, `;` between statements. NAME=VALUE sets a "
                           "parameter; block=32x8 and warp=N set the launch.",
                           "输入声明和一次访问，语句之间用 `;` 分隔。NAME=VALUE 设置参数；"
                           "block=32x8 和 warp=N 设置启动配置。"},
    [UIS_PLAY_KEYS]     = {"Up/Down history  Enter save  Tab access  ^U clear  ^X svg  F1 help  Esc back",
                           "Up/Down 历史  Enter 保存  Tab 访问  ^U 清空  ^X svg  F1 帮助  Esc 返回"},
};

const char *ui_str(const struct app *a, enum ui_str s)
{
    if (s < 0 || s >= UIS_COUNT)
        return "";
    const char *t = table[s][a->lang == LANG_ZH ? 1 : 0];
    return t ? t : table[s][0];
}
