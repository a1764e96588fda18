package bridge

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
)

// Claude Code's AskUserQuestion: the model asks the person one question
// or more, each with choices (and, in the CLI's own terminal, an "Other"
// box for an answer of their own). The CLI asks the client for the
// tool's permission, and the client answers by allowing it with the
// answers added to the tool's input ("answers": {question: answer}),
// which the tool gives the model.
//
// An editor that takes forms gets them as one form (ACP's elicitation in
// form mode): a field per question, a choice of its options (several
// for a multi-select question), and a free-text field beside it. An
// editor without forms gets a question with one choice as a permission
// question whose options are the choices; questions it cannot show
// (several, or a multi-select one) are refused with words the model
// reads, so that it asks in its reply instead.

// toolAskUserQuestion is the name of Claude Code's question tool.
const toolAskUserQuestion = "AskUserQuestion"

// askQuestion is one question of an AskUserQuestion call.
type askQuestion struct {
	Question    string `json:"question"`
	Header      string `json:"header"`
	MultiSelect bool   `json:"multiSelect"`
	Options     []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
}

// askQuestions returns the questions of an AskUserQuestion call's input
// that can be asked: those with a text and a choice; nil for none.
func askQuestions(input json.RawMessage) []askQuestion {
	var in struct {
		Questions []askQuestion `json:"questions"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var out []askQuestion
	for _, q := range in.Questions {
		if q.Question != "" && len(q.Options) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// The form's fields: question_N for the choice of question N,
// question_N_custom for an answer of one's own.
func choiceField(i int) string { return "question_" + strconv.Itoa(i) }
func customField(i int) string { return "question_" + strconv.Itoa(i) + "_custom" }

// askForm is the form of questions.
func askForm(questions []askQuestion) *Form {
	props := map[string]acp.ElicitationPropertySchema{}
	for i, q := range questions {
		var choices []acp.EnumOption
		for _, o := range q.Options {
			choices = append(choices, acp.EnumOption{Const: o.Label, Title: o.Label, Description: o.Description})
		}
		desc := ""
		if len(questions) > 1 {
			desc = q.Question // one question is the form's message
		}
		other := "Type your own answer, or add a note to the choice above (optional)."
		if q.MultiSelect {
			props[choiceField(i)] = acp.MultiSelectPropertySchema{Title: q.Header, Description: desc, Items: acp.TitledMultiSelectItems{AnyOf: choices}}
			other = "Type your own answer, to add to the choices above (optional)."
		} else {
			props[choiceField(i)] = acp.StringPropertySchema{Title: q.Header, Description: desc, OneOf: choices}
		}
		props[customField(i)] = acp.StringPropertySchema{Title: "Other", Description: other}
	}
	msg := "Please answer the following questions."
	if len(questions) == 1 {
		msg = questions[0].Question
	}
	return &Form{Message: msg, Schema: acp.ElicitationSchema{Type: acp.ElicitationSchemaObject, Properties: props}}
}

// askOptionPrefix begins the ids of the permission options that stand
// for a question's choices: "answer_0", "answer_1", …
const askOptionPrefix = "answer_"

// askOptions are the permission options of a question asked without a
// form: its choices, then Skip.
func askOptions(q askQuestion) []acp.PermissionOption {
	var out []acp.PermissionOption
	for i, o := range q.Options {
		out = append(out, acp.PermissionOption{OptionID: askOptionPrefix + strconv.Itoa(i), Name: o.Label, Kind: acp.PermissionAllowOnce})
	}
	return append(out, acp.PermissionOption{OptionID: optionReject, Name: "Skip", Kind: acp.PermissionRejectOnce})
}

// askRefusal is what the model reads when the editor cannot show its
// questions.
const askRefusal = "The editor cannot show these questions (only one question with a single choice can be asked there). Ask the user in your reply instead."

// ask puts an AskUserQuestion call's questions to the editor, as a form,
// a permission question, or not at all, and reports whether it put them.
func (c *claudeConversation) ask(h Host, r claude.PermissionRequest, tc acp.PermissionToolCall) bool {
	questions := askQuestions(r.Input)
	q := Question{ID: r.ID, ToolCall: tc}
	switch {
	case len(questions) == 0:
		c.deny(r, "The question had no choices to ask.")
		return false
	case h.Forms():
		q.Form = askForm(questions)
	case len(questions) == 1 && !questions[0].MultiSelect:
		q.ToolCall.Title = questions[0].Question
		q.Options = askOptions(questions[0])
	default:
		c.deny(r, askRefusal)
		return false
	}
	c.remember(r)
	c.questions[r.ID] = questions
	h.Ask(q)
	return true
}

// deny refuses a permission request with message, which the model reads.
func (c *claudeConversation) deny(r claude.PermissionRequest, message string) {
	if err := c.sess.Deny(r, message, false); err != nil {
		c.cfg.Logger.Warn("permission answer not written", "error", err)
	}
}

// answerAsk answers AskUserQuestion asked as a permission question: the
// choice picked, or none for Skip.
func (c *claudeConversation) answerAsk(r claude.PermissionRequest, questions []askQuestion, optionID string) error {
	answers := map[string]string{}
	// The editor's option id is a stranger's: only one askOptions made
	// names a choice.
	for i, o := range questions[0].Options {
		if optionID == askOptionPrefix+strconv.Itoa(i) {
			answers[questions[0].Question] = o.Label
		}
	}
	return c.allowAnswers(r, answers, nil)
}

func (c *claudeConversation) AnswerForm(h Host, q Question, res acp.CreateElicitationResult, err error) {
	r, questions, ok := c.take(q.ID)
	if !ok {
		return
	}
	switch {
	case err != nil:
		c.cfg.Logger.Warn("form request failed", "error", err)
		err = c.sess.Deny(r, "The editor could not ask the questions.", false)
	case res.Action == acp.ElicitationAccept:
		answers, notes := formAnswers(questions, res.Content)
		err = c.allowAnswers(r, answers, notes)
	case res.Action == acp.ElicitationDecline:
		err = c.allowAnswers(r, map[string]string{}, nil) // the model reads that they went unanswered
	default: // cancel, or an action this package does not know
		err = c.sess.Deny(r, "The user dismissed the questions without answering.", false)
	}
	if err != nil && !errors.Is(err, claude.ErrNotPending) {
		c.cfg.Logger.Warn("form answer not written", "error", err)
	}
}

// formAnswers reads an accepted form: the answer to each question, by
// its text, and the notes the person added beside a single choice.
// Multiple answers are joined as the CLI joins them, with ", ", an answer
// holding ", " or a quote written as a JSON string.
func formAnswers(questions []askQuestion, content json.RawMessage) (answers, notes map[string]string) {
	var fields map[string]json.RawMessage
	json.Unmarshal(content, &fields)
	answers, notes = map[string]string{}, map[string]string{}
	for i, q := range questions {
		var picks string
		var list []string
		raw := fields[choiceField(i)]
		var one string
		if json.Unmarshal(raw, &one) == nil {
			list = []string{one}
		} else {
			json.Unmarshal(raw, &list)
		}
		list = nonEmpty(list)
		var custom string
		json.Unmarshal(fields[customField(i)], &custom)
		custom = strings.TrimSpace(custom)
		switch {
		case q.MultiSelect:
			if custom != "" {
				list = append(list, custom)
			}
			picks = joinAnswers(list)
		case len(list) > 0:
			picks = strings.Join(list, ", ")
			if custom != "" {
				notes[q.Question] = custom
			}
		default:
			picks = custom
		}
		if picks != "" {
			answers[q.Question] = picks
		}
	}
	return answers, notes
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// joinAnswers joins a multi-select question's answers as Claude Code's
// own question UI does, so that the tool splits them back the same way.
func joinAnswers(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		if strings.Contains(s, ", ") || strings.Contains(s, `"`) {
			b, _ := json.Marshal(s)
			s = string(b)
		}
		quoted[i] = s
	}
	return strings.Join(quoted, ", ")
}

// allowAnswers allows AskUserQuestion with answers (and notes, each a
// note the person added to a question's answer) added to its input.
func (c *claudeConversation) allowAnswers(r claude.PermissionRequest, answers, notes map[string]string) error {
	var input map[string]json.RawMessage
	if err := json.Unmarshal(r.Input, &input); err != nil || input == nil {
		input = map[string]json.RawMessage{}
	}
	raw, err := json.Marshal(answers)
	if err != nil {
		return err
	}
	input["answers"] = raw
	if len(notes) > 0 {
		ann := map[string]map[string]string{}
		for q, n := range notes {
			ann[q] = map[string]string{"notes": n}
		}
		if input["annotations"], err = json.Marshal(ann); err != nil {
			return err
		}
	}
	updated, err := json.Marshal(input)
	if err != nil {
		return err
	}
	return c.sess.Allow(r, updated)
}
